"""What Python's builtins and standard library cost, for the cost analyzer's front end.

Each entry turns the sizes of a call's receiver and arguments (`Val`s) into its time, what it
allocates, and the size of what it returns. Lengths are elements (a list, a string), magnitudes are
values (an integer). A call not listed here is not free: the front end marks it unknown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rlm_lsp.cost.algebra import Cost


@dataclass(frozen=True)
class Val:
    """What the front end knows of a value's size."""
    length: Cost | None = None  # elements of a collection or characters of a string; None: unknown
    mag: Cost | None = None  # the value of an integer; None: unknown
    elem: Val | None = None  # one element (a grid's row, a graph's neighbour list)
    kind: str = ""  # list, str, dict, set, deque, int, node, range, lazy ("" unknown)
    depth: int = 0  # the loop depth it was created at (appends below that depth add up)
    param: str = ""  # the parameter it is, or derives from by one step (node.next, n - 1, xs[1:])
    step: str = ""  # how it derives from `param`: "" itself, "const" (n - 1), "half" (n // 2), "tree"


ONE = Cost.one()
UNKNOWN = Val()
CHAR = Val(length=ONE, kind="str")
NUMBER = Val(mag=ONE, kind="int")
CONSTANT_CALLS = {
    "print", "int", "float", "bool", "abs", "ord", "chr", "isinstance", "hash", "id", "type", "divmod", "round",
    "callable", "hasattr", "getattr", "setattr", "super", "object", "repr", "format", "ValueError", "TypeError",
    "IndexError", "KeyError", "Exception", "RuntimeError", "StopIteration", "NotImplementedError", "AssertionError",
    "sqrt", "log", "log2", "log10", "floor", "ceil", "exp", "gcd", "isqrt", "sin", "cos", "atan2", "hypot",
    "factorial", "comb", "perm", "randint", "random", "choice", "uniform", "next", "iter", "namedtuple",
    "defaultdict", "OrderedDict", "lcm", "fabs", "trunc", "inf", "isinf", "isnan", "cmp_to_key", "partial",
    "itemgetter", "attrgetter", "field", "dataclass", "time", "perf_counter", "seed", "Fraction", "Decimal",
}
LAZY = {"enumerate", "reversed", "iter", "map", "filter", "zip", "range", "chain", "islice", "accumulate"}
COPIES = {"list", "set", "tuple", "frozenset", "dict", "Counter", "deque", "bytearray", "bytes", "deepcopy", "copy",
          "OrderedDict", "array"}
WALKS = {"sum", "min", "max", "any", "all", "len", "fsum", "prod"}
STR_WALKS = {"split", "strip", "lstrip", "rstrip", "lower", "upper", "replace", "find", "rfind", "count", "index",
             "rindex", "swapcase", "title", "capitalize", "translate", "encode", "decode", "zfill", "rsplit",
             "splitlines", "casefold", "partition", "rpartition", "center", "ljust", "rjust", "expandtabs", "format"}
CONSTANT_METHODS = {"get", "isdigit", "isalpha", "isalnum", "isupper", "islower", "isspace", "popleft", "popitem",
                    "keys", "values", "items", "startswith", "endswith", "bit_length", "discard", "clear",
                    "setdefault", "peek", "top", "empty", "is_empty", "isEmpty", "size", "upper_char",
                    "__len__", "to_bytes", "from_bytes", "isnumeric", "isdecimal", "conjugate"}


def length(v: Val) -> Cost:
    return v.length if v.length is not None else ONE


def total(v: Val) -> Cost:
    """Elements, with each element's own elements (a grid's cells): what a copy allocates."""
    inner = v.elem.length if v.elem is not None and v.elem.length is not None else ONE
    return length(v).times(inner)


def printed(args: list[Val]) -> Cost:
    """The characters `print(*args)` writes: a collection's or a string's elements (a grid's cells), a
    big integer's digits, one line for anything else."""
    out = ONE
    for v in args:
        if v.kind in ("list", "tuple", "set", "dict", "deque", "str", "lazy"):
            out = out.plus(total(v))
        elif v.mag is not None and any(t.exp for t in v.mag.terms):
            out = out.plus(v.mag.log())
    return out


def of_kind(v: Val, kind: str) -> Val:
    return replace(v, kind=kind)


def sorted_cost(n: Cost) -> Cost:
    return n.times(n.log())


@dataclass(frozen=True)
class Effect:
    time: Cost = ONE
    memory: Cost = Cost.zero()  # allocated for a while
    result: Val = UNKNOWN
    known: bool = True
    store: Cost | None = None  # grows the receiver by this many elements (an append)


def builtin(name: str, args: list[Val], kwargs: dict[str, Val], const_args: list) -> Effect | None:
    """A call of a builtin or standard library function `name` (the last part of a dotted name)."""
    first = args[0] if args else UNKNOWN
    if name in ("map", "filter", "reduce", "starmap", "filterfalse", "takewhile", "dropwhile") and len(args) > 1:
        first = args[1]  # the function comes first, the iterable after it
        if name == "reduce":
            return Effect(length(first))
    n = length(first)
    if name in ("str", "repr") and first.kind in ("list", "tuple", "set", "dict", "deque"):
        m = total(first)  # a container's text: every element's
        return Effect(m, m, Val(length=m, kind="str"))
    if name in CONSTANT_CALLS:
        return Effect(result=NUMBER if name in ("int", "abs", "ord", "round", "hash") else UNKNOWN)
    if name == "len":
        return Effect(result=Val(mag=n, kind="int", param=first.param))
    if name == "range":
        stops = [a.mag if a.mag is not None else ONE for a in args]
        step = const_args[2] if len(const_args) > 2 else 1
        stop = stops[0] if len(stops) == 1 else (stops[0] if isinstance(step, (int, float)) and step < 0 else stops[1])
        if len(stops) >= 2 and stops[1] is not None and isinstance(step, (int, float)) and step < 0:
            stop = stops[0]
        return Effect(result=Val(length=stop, kind="range", elem=Val(mag=stop, kind="int")))
    if name in ("sorted", "nlargest", "nsmallest"):
        src = first if name == "sorted" else (args[1] if len(args) > 1 else UNKNOWN)
        m = length(src)
        return Effect(sorted_cost(m), m, Val(length=m, kind="list", elem=_elem(src)))
    if name in WALKS:
        if len(args) >= 2 and name in ("min", "max"):
            return Effect(result=args[0] if args[0].mag is not None else args[1])
        return Effect(n, result=Val(mag=n if name == "sum" else first.elem.mag if first.elem else None, kind="int"))
    if name in LAZY:
        if name == "zip":
            return Effect(result=Val(length=n, kind="lazy", elem=UNKNOWN))
        if name == "chain":
            m = Cost.zero()
            for a in args:
                m = m.plus(length(a))
            return Effect(result=Val(length=m, kind="lazy", elem=_elem(first)))
        if name == "enumerate":
            return Effect(result=Val(length=n, kind="lazy", elem=Val(kind="tuple", elem=_elem(first))))
        return Effect(result=Val(length=n, kind="lazy", elem=_elem(first)))
    if name in COPIES:
        if not args:
            return Effect(result=Val(length=ONE, kind=_kind_of(name), depth=-1))
        if name in ("set", "frozenset", "Counter", "dict") and _chars(first):
            return Effect(n, ONE, Val(length=ONE, kind=_kind_of(name), elem=_elem(first), depth=-1))
        m = total(first) if name in ("deepcopy",) else n
        return Effect(m, m, Val(length=n, kind=_kind_of(name), elem=_elem(first)))
    if name in ("combinations", "permutations", "product", "combinations_with_replacement"):
        k = const_args[1] if len(const_args) > 1 and isinstance(const_args[1], int) else None
        if name == "product":
            m = Cost.one()
            for a in args:
                m = m.times(length(a))
            return Effect(result=Val(length=m, kind="lazy", elem=Val(kind="tuple")))
        if name == "permutations" and k is None:
            return Effect(result=Val(length=n.exponential(), kind="lazy", elem=Val(length=n, kind="tuple")))
        return Effect(result=Val(length=n.power(k or 2), kind="lazy", elem=Val(kind="tuple")),
                      known=k is not None)
    if name in ("heapify",):
        return Effect(n)
    if name in ("heappush", "heappushpop", "heapreplace"):
        return Effect(n.log(), store=ONE if name == "heappush" else None)
    if name == "heappop":
        return Effect(n.log(), result=_elem(first))
    if name in ("bisect", "bisect_left", "bisect_right"):
        return Effect(n.log(), result=Val(mag=n, kind="int"))
    if name in ("insort", "insort_left", "insort_right"):
        return Effect(n, store=ONE)
    if name == "pow" and len(args) == 3:
        return Effect((args[1].mag or ONE).log(), result=NUMBER)
    if name in ("bin", "hex", "oct", "str"):
        m = first.mag.log() if first.mag is not None and name != "str" else ONE
        return Effect(m, m, Val(length=m, kind="str"))
    if name in ("input", "open", "readline"):
        return Effect(known=False)
    return None


def method(name: str, recv: Val, args: list[Val], const_args: list) -> Effect | None:
    """A method `name` called on a value of size `recv`."""
    n = length(recv)
    first = args[0] if args else UNKNOWN
    if name == "add":  # a set's element is hashable: a string at most, never a list
        return Effect(store=Cost.one().plus(total(first) if first.kind == "str" else ONE))
    if name in ("append", "appendleft", "push"):
        return Effect(store=Cost.one().plus(total(first) if first.kind in ("list", "str", "dict", "set") else ONE))
    if name in ("extend", "update", "extendleft"):
        return Effect(length(first), store=length(first))
    if name == "pop":
        at_front = const_args and const_args[0] == 0 or (args and const_args and const_args[0] is None)
        if recv.kind in ("dict", "set", "deque") or not args or (const_args and const_args[0] == -1):
            return Effect(result=_elem(recv))
        return Effect(n, result=_elem(recv)) if at_front or args else Effect(result=_elem(recv))
    if name == "insert":
        return Effect(n, store=ONE)
    if name in ("remove", "index", "count") and recv.kind != "str":
        return Effect(n, result=Val(mag=n, kind="int"))
    if name == "sort":
        return Effect(sorted_cost(n))
    if name in ("reverse",):
        return Effect(n)
    if name in ("copy",):
        return Effect(n, n, replace(recv, depth=-1))
    if name == "join":
        m = length(first).times(length(first.elem) if first.elem is not None else ONE)
        return Effect(m, m, Val(length=m, kind="str"))
    if name in ("most_common",):
        return Effect(sorted_cost(n), n, Val(length=n, kind="list"))
    if name in ("split", "rsplit", "splitlines"):
        return Effect(n, n, Val(length=n, kind="list", elem=Val(length=n, kind="str")))
    if name in ("find", "index", "rfind", "rindex") and len(args) >= 2:  # from a position on: a scan onward
        return Effect(result=Val(mag=n, kind="int"))
    if name in STR_WALKS:
        result = Val(length=n, kind="str", elem=CHAR if name != "split" else None) \
            if name not in ("find", "rfind", "count", "index", "rindex") else Val(mag=n, kind="int")
        return Effect(n, n if result.kind == "str" else Cost.zero(), result)
    if name in CONSTANT_METHODS:
        result = _elem(recv) if name in ("get", "popleft", "peek", "top", "setdefault") else UNKNOWN
        if name in ("keys", "values", "items"):
            result = Val(length=n, kind="lazy", elem=_elem(recv))
        return Effect(result=result, store=ONE if name == "setdefault" else None)
    return None


def _chars(v: Val) -> bool:
    """A string, or a collection of single characters: what it holds comes from an alphabet."""
    e = v.elem
    return v.kind == "str" or e is not None and e.kind == "str" and e.length is not None and e.length.is_constant() \
        and v.kind != "list"


def _elem(v: Val) -> Val:
    return v.elem if v.elem is not None else UNKNOWN


def _kind_of(name: str) -> str:
    return {"set": "set", "frozenset": "set", "dict": "dict", "Counter": "dict", "OrderedDict": "dict",
            "deque": "deque", "tuple": "tuple"}.get(name, "list")
