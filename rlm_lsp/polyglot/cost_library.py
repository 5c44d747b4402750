"""What C++'s, Java's and Go's standard libraries cost, for the cost front end.

    a declared type     -> a kind (`type_kind`): list, str, hmap / tmap (hashed / ordered map),
                           hset / tset, deque, heap, builder, int, scalar, node
    a method on a kind  -> `method`: its time, what it allocates for a while, what it keeps (`store`:
                           elements added to the receiver), the size of what it returns
    a free function     -> `function`: `std::sort`, `Arrays.sort`, `sort.Slice`, `len`, `append`, `Math.max`

Sorting is n log n; an append is amortised constant time and keeps one element; an insert or
erase at the front, a search of a list or a string and a substring are n; an ordered map's or
set's operation is log n, a hashed one's constant. A call not listed returns None, and the front
end marks it unknown: it never counts as free.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlm_lsp.cost.algebra import Cost

ONE = Cost.one()


@dataclass(frozen=True)
class Val:
    """What the front end knows of a value's size (as the Python front end's `Val`)."""
    length: Cost | None = None  # elements of a container or characters of a string; None: unknown
    mag: Cost | None = None  # the value of an integer; None: unknown
    elem: Val | None = None  # one element (a row of a table, a map's value)
    kind: str = ""  # list, str, hmap, tmap, hset, tset, deque, heap, builder, int, scalar, node, iter ("" unknown)
    depth: int = 0  # the loop depth it was made at (what is added below that depth adds up)
    param: str = ""  # the parameter it is, or derives from by one step (n - 1, node.left)
    step: str = ""  # how it derives from `param`: "" itself, "const", "half", "tree"


UNKNOWN = Val()
CHAR = Val(length=ONE, kind="str")
NUMBER = Val(mag=ONE, kind="int")
SCALAR = Val(mag=ONE, kind="scalar")
CONTAINERS = ("list", "str", "hmap", "tmap", "hset", "tset", "deque", "heap", "builder")

TYPE_KINDS = {
    # C++
    "vector": "list", "array": "list", "deque": "deque", "queue": "deque", "stack": "deque", "list": "deque",
    "string": "str", "wstring": "str", "string_view": "str", "map": "tmap", "multimap": "tmap", "set": "tset",
    "multiset": "tset", "unordered_map": "hmap", "unordered_multimap": "hmap", "unordered_set": "hset",
    "unordered_multiset": "hset", "priority_queue": "heap", "bitset": "scalar", "pair": "scalar",
    "int": "int", "long": "int", "short": "int", "unsigned": "int", "size_t": "int", "int64_t": "int",
    "int32_t": "int", "uint64_t": "int", "uint32_t": "int", "ll": "int", "LL": "int",
    "double": "scalar", "float": "scalar", "bool": "scalar", "char": "scalar", "void": "scalar",
    # Java
    "List": "list", "ArrayList": "list", "Vector": "list", "AbstractList": "list", "Collection": "list",
    "LinkedList": "deque", "Deque": "deque", "ArrayDeque": "deque", "Queue": "deque", "Stack": "deque",
    "String": "str", "CharSequence": "str", "StringBuilder": "builder", "StringBuffer": "builder",
    "Map": "hmap", "HashMap": "hmap", "LinkedHashMap": "hmap", "TreeMap": "tmap", "SortedMap": "tmap",
    "NavigableMap": "tmap", "Set": "hset", "HashSet": "hset", "LinkedHashSet": "hset", "TreeSet": "tset",
    "SortedSet": "tset", "NavigableSet": "tset", "PriorityQueue": "heap", "Integer": "int", "Long": "int",
    "Short": "int", "byte": "scalar", "Double": "scalar", "Float": "scalar", "Boolean": "scalar",
    "boolean": "scalar", "Character": "scalar", "Byte": "scalar", "Object": "", "BigInteger": "scalar",
    # Go
    "int64": "int", "int32": "int", "uint": "int", "uint64": "int", "uint32": "int", "float64": "scalar",
    "float32": "scalar", "rune": "scalar", "Builder": "builder", "Buffer": "builder", "error": "scalar",
}
CONSTANT_METHODS = {
    "size", "length", "empty", "isEmpty", "back", "front", "top", "pop_back", "pop_front", "pop", "get", "set",
    "charAt", "peek", "peekFirst", "peekLast", "getFirst", "getLast", "first", "last", "poll", "pollFirst",
    "pollLast", "removeFirst", "removeLast", "push_front", "emplace_front", "offerFirst", "addFirst", "swap",
    "begin", "end", "rbegin", "rend", "cbegin", "cend", "at", "second", "equals", "hashCode", "compareTo",
    "intValue", "longValue", "doubleValue", "getKey", "getValue", "clear", "reserve", "capacity", "Len",
    "String", "count_ones", "isDigit", "isLetter", "isLetterOrDigit", "isUpperCase", "isLowerCase",
    "toUpperCase", "toLowerCase", "max", "min", "abs", "next", "hasNext", "ordinal", "entrySet", "keySet",
    "values", "Reset", "Grow", "c_str", "data", "iterator", "stream", "sum", "getOrDefault", "putIfAbsent",
    "containsKey", "floorKey", "ceilingKey", "lowerKey", "higherKey", "firstKey", "lastKey", "floor", "ceiling",
    "lower", "higher", "pollFirstEntry", "pollLastEntry", "firstEntry", "lastEntry", "merge", "compute",
    "computeIfAbsent", "computeIfPresent", "lower_bound", "upper_bound", "equal_range", "find", "count",
    "contains", "containsValue",
}
STORES = {"push_back", "emplace_back", "push", "emplace", "push_front", "emplace_front", "add", "addLast",
          "addFirst", "offer", "offerLast", "offerFirst", "put", "putIfAbsent", "insert", "append", "WriteString",
          "WriteByte", "WriteRune", "Write", "computeIfAbsent", "merge", "addAll", "putAll", "Push", "setdefault"}
KEYED = ("hmap", "tmap", "hset", "tset")
SCANS = {"find", "indexOf", "lastIndexOf", "contains", "count", "rfind", "find_first_of", "find_last_of",
         "compare", "startsWith", "endsWith", "replace", "replaceAll", "trim", "strip", "toUpperCase",
         "toLowerCase", "split", "toCharArray", "chars", "getBytes", "matches", "equals", "repeat", "join",
         "reverse", "toString", "remove", "removeAll", "retainAll", "containsAll", "fill", "stream", "clone",
         "subList", "toArray", "sort", "substr", "substring", "subSequence", "deleteCharAt", "setLength"}
FREE_CONSTANT = {"max", "min", "abs", "swap", "sqrt", "pow", "floor", "ceil", "log", "log2", "log10", "gcd",
                 "__gcd", "lcm", "printf", "println", "print", "Println", "Printf", "Sprintf", "Sprint",
                 "Print", "to_string", "stoi", "stol", "stoll", "atoi", "valueOf", "parseInt", "parseLong",
                 "toString", "Itoa", "Atoi", "ParseInt", "FormatInt", "make_pair", "tie", "make_tuple",
                 "isdigit", "isalpha", "isalnum", "tolower", "toupper", "isupper", "islower", "isspace",
                 "Abs", "Max", "Min", "Sqrt", "Pow", "Floor", "Ceil", "Inf", "MaxInt", "MinInt", "len", "cap",
                 "delete", "panic", "new", "assert", "move", "hash", "signum", "floorMod", "floorDiv",
                 "isDigit", "isLetter", "isLetterOrDigit", "toUpperCase", "toLowerCase", "getNumericValue",
                 "asList", "of", "emptyList", "requireNonNull", "hypot", "exp", "round", "random", "rand",
                 "IsDigit", "IsLetter", "IsUpper", "IsLower", "ToUpper", "ToLower", "Float64", "Intn", "bitCount",
                 "numberOfTrailingZeros", "numberOfLeadingZeros", "highestOneBit", "__builtin_popcount",
                 "__builtin_popcountll", "__builtin_clz", "__builtin_ctz", "OnesCount", "TrailingZeros",
                 "LeadingZeros", "exit", "memcpy_s", "compare", "Compare", "iota_const", "nanoTime",
                 "currentTimeMillis", "Sizeof", "Errorf", "New", "recover", "close", "boolalpha", "greater",
                 "less", "make_heap_const", "begin", "end", "size", "empty", "distance", "prev", "next",
                 "addExact", "multiplyExact", "ceilDiv", "nextInt", "equals"}
SORTS = {"sort", "stable_sort", "Ints", "Strings", "Float64s", "Slice", "SliceStable", "Sort", "Stable",
         "SortFunc", "SortStableFunc", "partial_sort", "parallelSort"}
WALKS = {"reverse", "accumulate", "max_element", "min_element", "find", "count", "count_if", "fill", "fill_n",
         "unique", "next_permutation", "prev_permutation", "iota", "memset", "all_of", "any_of", "none_of",
         "find_if", "replace", "rotate", "partial_sum", "transform", "nth_element", "copy", "equal", "remove",
         "remove_if", "shuffle", "frequency", "Contains", "Index", "IndexByte", "LastIndex", "Count", "Fields",
         "Split", "Join", "Repeat", "Replace", "ReplaceAll", "TrimSpace", "Trim", "ToUpper", "ToLower",
         "HasPrefix", "HasSuffix", "EqualFold", "Reverse", "Equal", "stream", "make_heap", "is_sorted",
         "inner_product", "merge", "set_intersection", "set_union", "set_difference", "strlen", "strcmp",
         "Heapify", "Init", "hashCode", "deepToString", "ContainsRune", "Map", "Title", "Max", "Min",
         "IndexFunc", "ContainsAny", "Clone", "Compact", "max", "min", "sum", "disjoint", "nCopies"}
LOG_FUNCS = {"lower_bound", "upper_bound", "binary_search", "binarySearch", "Search", "SearchInts",
             "push_heap", "pop_heap", "BinarySearch", "heappush", "Push", "Pop", "Fix", "Remove"}
COPIES = {"copyOf", "copyOfRange", "Clone", "arraycopy", "Copy", "copy", "vector", "string", "ArrayList",
          "HashSet", "HashMap", "TreeSet", "TreeMap", "LinkedList", "ArrayDeque", "PriorityQueue"}


@dataclass(frozen=True)
class Effect:
    time: Cost = ONE
    memory: Cost = Cost.zero()  # allocated for a while
    result: Val = UNKNOWN
    known: bool = True
    store: Cost | None = None  # grows the receiver by this many elements (an append)


def free(c: Cost) -> bool:
    """No cost that grows: unlike `Cost.is_constant`, a `log n` alone is not free (a heap push)."""
    return all(not t.powers and not t.exp and not t.logs for t in c.terms)


def length(v: Val) -> Cost:
    return v.length if v.length is not None else ONE


def total(v: Val) -> Cost:
    """Elements, with each element's own elements (a table's cells): what a copy allocates."""
    inner = v.elem.length if v.elem is not None and v.elem.length is not None and v.elem.kind in CONTAINERS \
        else ONE
    return length(v).times(inner)


def elem(v: Val) -> Val:
    return v.elem if v.elem is not None else UNKNOWN


def sorted_cost(n: Cost) -> Cost:
    return n.times(n.log())


def keyed_cost(v: Val) -> Cost:
    """One operation on a map or a set: log n when ordered, constant when hashed."""
    return length(v).log() if v.kind in ("tmap", "tset", "heap") else ONE


def method(name: str, recv: Val, args: list[Val], arg_texts: list[str]) -> Effect | None:
    """A method `name` called on a value of size `recv` (`args`: its arguments' sizes and texts)."""
    n = length(recv)
    kind = recv.kind
    first = args[0] if args else UNKNOWN
    item = Cost.one().plus(total(first) if first.kind in CONTAINERS else ONE)
    if kind in KEYED:
        cost = keyed_cost(recv)
        if name in ("put", "insert", "add", "emplace", "putIfAbsent", "merge", "computeIfAbsent", "setdefault"):
            return Effect(cost, store=ONE if kind in ("hset", "tset") else item)
        if name in ("addAll", "putAll"):
            return Effect(length(first).times(cost), store=length(first))
        if name in ("get", "find", "count", "contains", "containsKey", "remove", "erase", "at", "getOrDefault",
                    "lower_bound", "upper_bound", "floorKey", "ceilingKey", "floor", "ceiling", "lowerKey",
                    "higherKey", "lower", "higher", "compute", "computeIfPresent", "pollFirst", "pollLast",
                    "pollFirstEntry", "pollLastEntry", "first", "last", "firstKey", "lastKey"):
            return Effect(cost, result=elem(recv))
        if name in ("containsValue", "values", "keySet", "entrySet"):
            return Effect(n if name == "containsValue" else ONE, result=Val(length=n, kind="list", elem=elem(recv)))
    if kind == "heap":
        if name in ("push", "emplace", "add", "offer"):
            return Effect(n.log(), store=item)
        if name in ("pop", "poll", "remove"):
            return Effect(n.log(), result=elem(recv))
    if name in ("push_back", "emplace_back", "push", "emplace", "push_front", "emplace_front", "addLast",
                "addFirst", "offer", "offerLast", "offerFirst", "WriteString", "WriteByte", "WriteRune", "Write"):
        return Effect(store=length(first) if name.startswith("Write") and first.kind == "str" else item)
    if name in ("add", "append") and kind != "str":
        if len(args) >= 2 and kind == "list":  # add(i, x): shifts what follows i
            return Effect(n, store=ONE)
        if kind == "builder" and first.kind == "str":
            return Effect(length(first), store=length(first))
        return Effect(store=item)
    if name == "insert" and kind in ("list", "str", "builder"):
        at_end = bool(arg_texts) and arg_texts[0].replace(" ", "").endswith(("end()", ".length()", ".size()"))
        return Effect(ONE if at_end else n, store=ONE)
    if name in ("erase", "remove", "deleteCharAt", "removeAt") and kind in ("list", "str", "builder"):
        at_end = bool(arg_texts) and ("size()" in arg_texts[0] or "length()" in arg_texts[0])
        return Effect(ONE if at_end else n, result=elem(recv))
    if name in ("addAll", "insertAll"):
        return Effect(length(first), store=length(first))
    if name in ("substr", "substring", "subSequence"):
        width = args[1].mag if name == "substr" and len(args) >= 2 and args[1].mag is not None else n
        return Effect(width, width, Val(length=width, kind="str", depth=-1))
    if name in ("size", "length", "Len", "capacity") or name == "count" and not args:
        return Effect(result=Val(mag=n, kind="int", param=recv.param))
    if name in ("get", "at", "back", "front", "top", "peek", "peekFirst", "peekLast", "getFirst", "getLast",
                "pop", "poll", "pollFirst", "pollLast", "removeFirst", "removeLast", "pop_back", "pop_front",
                "charAt", "first", "last"):
        return Effect(result=CHAR if kind == "str" or name == "charAt" else elem(recv))
    if name in ("begin", "end", "rbegin", "rend", "cbegin", "cend", "iterator", "stream", "chars", "entrySet",
                "keySet", "values"):
        return Effect(result=Val(length=n, kind="iter", elem=elem(recv), param=recv.param))
    if name in ("toString", "String", "str") and kind == "builder":
        return Effect(n, n, Val(length=n, kind="str", depth=-1))
    if name in ("toCharArray", "split", "getBytes", "clone", "toArray", "subList", "Fields"):
        return Effect(n, n, Val(length=n, kind="list", elem=CHAR if kind == "str" else elem(recv), depth=-1))
    if name in ("sort",):
        return Effect(sorted_cost(n))
    if name in SCANS and kind in ("list", "str", "deque", "builder", "iter", ""):
        if kind == "" and name in ("equals", "compareTo", "toString", "count"):
            return Effect(result=UNKNOWN)
        result = Val(length=n, kind="str", depth=-1) if name in ("replace", "replaceAll", "trim", "strip",
                                                                 "toUpperCase", "toLowerCase", "repeat") \
            else Val(mag=n, kind="int")
        return Effect(n, n if result.kind == "str" else Cost.zero(), result)
    if name in CONSTANT_METHODS:
        return Effect(result=elem(recv) if name in ("get", "getOrDefault", "second") else UNKNOWN)
    return None


def function(name: str, scope: str, args: list[Val]) -> Effect | None:
    """A free or static function `scope.name` (`std::sort`, `Arrays.sort`, `sort.Ints`, `len`)."""
    first = args[0] if args else UNKNOWN
    n = length(first)
    if name in ("len", "cap") and scope == "":
        return Effect(result=Val(mag=n, kind="int", param=first.param))
    if name == "append" and scope == "":
        return Effect(result=first, store=ONE)  # `append(xs, ys...)`: the walker stores len(ys)
    if name in SORTS and scope in ("std", "", "Arrays", "Collections", "sort", "slices", "ranges"):
        if scope == "" and name not in ("sort", "stable_sort"):
            return None
        return Effect(sorted_cost(n), n if scope in ("std", "", "Arrays", "Collections") and first.kind != "iter"
                      else Cost.zero())
    if name in LOG_FUNCS and scope in ("std", "", "Arrays", "Collections", "sort", "heap", "slices"):
        return Effect(n.log(), result=Val(mag=n, kind="int"))
    if name in COPIES and scope in ("Arrays", "System", "slices", "strings", "bytes", "") and name != "copy" or \
            name == "copy" and scope in ("", "std"):
        return Effect(n, n, Val(length=n, kind=first.kind or "list", elem=elem(first), depth=-1))
    if name in WALKS and scope in ("std", "", "Arrays", "Collections", "strings", "slices", "heap", "bytes",
                                   "String", "ranges"):
        if name in ("max", "min") and scope in ("std", "") and len(args) >= 2 and first.kind != "iter":
            return Effect(result=first if first.mag is not None else args[1])
        result = Val(length=n, kind="str", depth=-1) if name in ("Repeat", "Replace", "ReplaceAll", "TrimSpace",
                                                                 "ToUpper", "ToLower", "Join", "Title") \
            else Val(mag=n, kind="int")
        if name == "Repeat" and len(args) >= 2 and args[1].mag is not None:
            m = length(first).times(args[1].mag)
            return Effect(m, m, Val(length=m, kind="str", depth=-1))
        if name in ("Split", "Fields"):
            result = Val(length=n, kind="list", elem=Val(length=n, kind="str"), depth=-1)
        return Effect(n, n if result.kind in ("str", "list") else Cost.zero(), result)
    if name in FREE_CONSTANT:
        if name in ("max", "min", "abs", "Abs", "Max", "Min") and args:
            mags = [a.mag for a in args if a.mag is not None]
            return Effect(result=Val(mag=mags[0], kind="int") if mags else NUMBER)
        if name in ("valueOf", "toString", "to_string", "Itoa", "Sprintf", "Sprint", "FormatInt"):
            return Effect(result=Val(length=ONE, kind="str", depth=-1))
        return Effect(result=NUMBER if name not in ("asList", "of", "move") else first)
    return None


def type_kind(type_name: str) -> str:
    """The kind of a declared type's base name (`vector` -> list, `TreeMap` -> tmap); "" unknown."""
    if type_name in TYPE_KINDS:
        return TYPE_KINDS[type_name]
    if type_name.endswith("Node") or type_name in ("Node", "Tree"):
        return "node"
    return ""
