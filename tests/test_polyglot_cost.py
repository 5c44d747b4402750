"""The cost analyzer's C++, Java and Go front end (`rlm_lsp.polyglot.cost_front`): its reading of
textbook functions per language, its library costs, its refusals (never an exception), and its wiring
into a model's `growth_analyzer`."""

from __future__ import annotations

import pytest

for _module in ("tree_sitter", "tree_sitter_cpp", "tree_sitter_java", "tree_sitter_go"):
    pytest.importorskip(_module, reason="tree-sitter grammars are not installed: "
                        "pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")

from rlm_lsp.polyglot.cost_front import MAX_CHARS, read  # noqa: E402
from rlm_lsp.runtime import readers  # noqa: E402
from rlm_lsp.runtime.cost_growth import AnalyzerSpec, CostGrowth  # noqa: E402
from rlm_lsp.runtime.prediction import Prediction  # noqa: E402

CPP = """#include <vector>
#include <algorithm>
using namespace std;

int constant(vector<int>& xs) {
    return xs[0] + 1;
}

long long linear(vector<int>& xs) {
    long long t = 0;
    for (int i = 0; i < (int)xs.size(); i++) {
        t += xs[i];
    }
    return t;
}

int nested(vector<int>& xs) {
    int c = 0;
    for (int i = 0; i < xs.size(); i++)
        for (int j = i + 1; j < xs.size(); j++)
            if (xs[i] > xs[j]) c++;
    return c;
}

vector<vector<int>> table(int n) {
    vector<vector<int>> dp(n, vector<int>(n));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            dp[i][j] = i * j;
    return dp;
}

vector<int> sortIt(vector<int> xs) {
    sort(xs.begin(), xs.end());
    return xs;
}

int halving(int n) {
    int c = 0;
    while (n > 0) { n /= 2; c++; }
    return c;
}

vector<int> fill(int n) {
    vector<int> v;
    for (int i = 0; i < n; i++) v.push_back(i);
    return v;
}

int bsearch(vector<int>& xs, int t) {
    int lo = 0, hi = xs.size() - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (xs[mid] < t) lo = mid + 1; else hi = mid - 1;
    }
    return lo;
}

int fact(int n) { if (n <= 1) return 1; return n * fact(n - 1); }

int fib(int n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }

vector<int> memo;
int fibm(int n) {
    if (n < 2) return n;
    if (memo[n] != -1) return memo[n];
    return memo[n] = fibm(n - 1) + fibm(n - 2);
}

void msort(vector<int>& a, int lo, int hi) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    msort(a, lo, mid);
    msort(a, mid, hi);
    vector<int> tmp;
    for (int i = lo; i < hi; i++) tmp.push_back(a[i]);
}

int frontErase(vector<int>& xs) {
    int s = 0;
    while (!xs.empty()) { s += xs[0]; xs.erase(xs.begin()); }
    return s;
}

int counts(vector<int>& xs) {
    unordered_map<int, int> m;
    for (int x : xs) m[x]++;
    return m.size();
}

int ordered(vector<int>& xs) {
    map<int, int> m;
    for (int x : xs) m[x]++;
    return m.size();
}

string build(int n) {
    string s;
    for (int i = 0; i < n; i++) s += 'a';
    return s;
}

int findAll(vector<int>& xs) {
    int c = 0;
    for (int x : xs) if (find(xs.begin(), xs.end(), x + 1) != xs.end()) c++;
    return c;
}
"""

JAVA = """import java.util.*;

class Samples {
    int constant(int[] xs) {
        return xs[0] + 1;
    }

    long linear(int[] xs) {
        long t = 0;
        for (int i = 0; i < xs.length; i++) t += xs[i];
        return t;
    }

    int nested(List<Integer> xs) {
        int c = 0;
        for (int i = 0; i < xs.size(); i++)
            for (int j = i + 1; j < xs.size(); j++)
                if (xs.get(i) > xs.get(j)) c++;
        return c;
    }

    int[][] table(int n) {
        int[][] dp = new int[n][n];
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                dp[i][j] = i + j;
        return dp;
    }

    int[] sortIt(int[] xs) {
        Arrays.sort(xs);
        return xs;
    }

    void sortList(List<Integer> xs) {
        Collections.sort(xs);
    }

    int halving(int n) {
        int c = 0;
        while (n > 1) { n >>= 1; c++; }
        return c;
    }

    List<Integer> fill(int n) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(i);
        return out;
    }

    String concat(int n) {
        String s = "";
        for (int i = 0; i < n; i++) s += "a";
        return s;
    }

    String builder(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append('a');
        return sb.toString();
    }

    int frontRemove(List<Integer> xs) {
        int s = 0;
        while (!xs.isEmpty()) s += xs.remove(0);
        return s;
    }

    int counts(int[] xs) {
        Map<Integer, Integer> m = new HashMap<>();
        for (int x : xs) m.put(x, m.getOrDefault(x, 0) + 1);
        return m.size();
    }

    int ordered(int[] xs) {
        TreeMap<Integer, Integer> m = new TreeMap<>();
        for (int x : xs) m.put(x, m.getOrDefault(x, 0) + 1);
        return m.size();
    }

    int subs(String s) {
        int c = 0;
        for (int i = 0; i < s.length(); i++) c += s.substring(i).length();
        return c;
    }

    int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

    int fib(int n) { if (n < 2) return n; return fib(n - 1) + fib(n - 2); }

    Map<Integer, Integer> memo = new HashMap<>();
    int fibm(int n) {
        if (n < 2) return n;
        if (memo.containsKey(n)) return memo.get(n);
        int r = fibm(n - 1) + fibm(n - 2);
        memo.put(n, r);
        return r;
    }

    void msort(int[] a, int lo, int hi) {
        if (hi - lo < 2) return;
        int mid = (lo + hi) >>> 1;
        msort(a, lo, mid);
        msort(a, mid, hi);
        int[] tmp = new int[hi - lo];
        for (int i = lo; i < hi; i++) tmp[i - lo] = a[i];
    }

    int bsearch(int[] xs, int lo, int hi, int t) {
        if (lo > hi) return -1;
        int mid = (lo + hi) / 2;
        if (xs[mid] == t) return mid;
        if (xs[mid] < t) return bsearch(xs, mid + 1, hi, t);
        return bsearch(xs, lo, mid - 1, t);
    }

    int depth(TreeNode root) {
        if (root == null) return 0;
        return 1 + Math.max(depth(root.left), depth(root.right));
    }
}
"""

GO = """package samples

import "sort"

func constant(xs []int) int {
	return xs[0] + 1
}

func linear(xs []int) int {
	t := 0
	for i := 0; i < len(xs); i++ {
		t += xs[i]
	}
	return t
}

func nested(xs []int) int {
	c := 0
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if xs[i] > xs[j] {
				c++
			}
		}
	}
	return c
}

func table(n int) [][]int {
	dp := make([][]int, n)
	for i := 0; i < n; i++ {
		dp[i] = make([]int, n)
	}
	return dp
}

func sortIt(xs []int) []int {
	sort.Ints(xs)
	return xs
}

func sortSlice(xs []int) {
	sort.Slice(xs, func(a, b int) bool { return xs[a] < xs[b] })
}

func halving(n int) int {
	c := 0
	for n > 0 {
		n /= 2
		c++
	}
	return c
}

func fill(n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		out = append(out, i)
	}
	return out
}

func concat(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		s += "a"
	}
	return s
}

func counts(xs []int) int {
	m := make(map[int]int)
	for _, x := range xs {
		m[x]++
	}
	return len(m)
}

func prefixes(s string) int {
	c := 0
	for i := range s {
		c += len(s[:i])
	}
	return c
}

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

var memo = map[int]int{}

func fibm(n int) int {
	if n < 2 {
		return n
	}
	if v, ok := memo[n]; ok {
		return v
	}
	r := fibm(n-1) + fibm(n-2)
	memo[n] = r
	return r
}

func msort(a []int) []int {
	if len(a) < 2 {
		return a
	}
	mid := len(a) / 2
	l := msort(a[:mid])
	r := msort(a[mid:])
	out := make([]int, 0, len(a))
	i, j := 0, 0
	for i < len(l) && j < len(r) {
		if l[i] < r[j] {
			out = append(out, l[i])
			i++
		} else {
			out = append(out, r[j])
			j++
		}
	}
	out = append(out, l[i:]...)
	out = append(out, r[j:]...)
	return out
}

func search(xs []int, t int) int {
	lo, hi := 0, len(xs)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if xs[mid] < t {
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	return lo
}
"""

SAMPLES = {"cpp": CPP, "java": JAVA, "go": GO}

# (function, time, memory) per language: what the front end reads (memory None: not asserted)
COMMON = [("constant", "1", "1"), ("linear", "n", "1"), ("nested", "n²", "1"), ("table", "n²", "n²"),
          ("sortIt", "n·log n", None), ("halving", "log n", "1"), ("fill", "n", "n"), ("counts", "n", "n"),
          ("fact", "n", "n"), ("fib", "2ⁿ", "n"), ("fibm", "n", "n"), ("msort", "n·log n", "n")]
OWN = {
    "cpp": [("bsearch", "log n", "1"), ("frontErase", "n²", "1"), ("ordered", "n·log n", "n"),
            ("build", "n", "n"), ("findAll", "n²", "1")],
    "java": [("sortList", "n·log n", None), ("concat", "n²", "n"), ("builder", "n", "n"),
             ("frontRemove", "n²", "1"), ("ordered", "n·log n", "n"), ("subs", "s²", "s"),
             ("bsearch", "log n", None), ("depth", "n", None)],
    "go": [("sortSlice", "n·log n", None), ("concat", "n²", "n"), ("prefixes", "s", "1"), ("search", "log n", "1")],
}
CASES = [(lang, *row) for lang in SAMPLES for row in COMMON + OWN[lang]]


@pytest.mark.parametrize("language,name,time,memory", CASES)
def test_textbook_functions_read_per_language(language, name, time, memory):
    s = read(SAMPLES[language], language, name)
    assert s is not None
    assert s.text("latency") == time
    if memory is not None:
        assert s.text("memory") == memory
    assert s.sure, s.unknown


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_growth_ranks_the_sample_and_the_table_outgrows_the_constant(language):
    g = {n: read(SAMPLES[language], language, n).growth("latency") for n in ("constant", "linear", "sortIt", "nested")}
    assert g["constant"] < g["linear"] < g["sortIt"] < g["nested"]
    memory = {n: read(SAMPLES[language], language, n).growth("memory") for n in ("constant", "table")}
    assert memory["table"] > memory["constant"]


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_recursions_say_how_they_recurse(language):
    how = {n: read(SAMPLES[language], language, n).recursion for n in ("fact", "fib", "fibm", "msort")}
    assert how == {"fact": "one call, one step smaller", "fib": "several calls, each one step smaller",
                   "fibm": "memoised", "msort": "halving"}


def test_the_entry_is_the_last_function_unless_named():
    assert read(GO, "go").text("latency") == "log n"  # search, the last one
    assert read(JAVA, "java", "Samples.nested").text("latency") == "n²"
    assert read(JAVA, "java", "noSuchMethod") is None


def test_a_parameter_that_scales_and_one_that_does_not():
    code = "int f(vector<int>& xs, int k) {\n  int c = 0;\n  for (int i = 0; i < k; i++) c += xs[i];\n" \
           "  for (int x : xs) c += x;\n  return c;\n}\n"
    s = read(code, "cpp")
    assert s.text("latency") == "n" and [m for _, m in s.legend()] == ["the length of xs"]
    two = "func f(a []int, b []int) int {\n\tc := 0\n\tfor _, x := range a {\n\t\tfor _, y := range b {\n" \
          "\t\t\tc += x * y\n\t\t}\n\t}\n\treturn c\n}\n"
    assert read(two, "go").text("latency") in ("n·m", "m·n")


def test_allocations_read_their_sizes():
    cpp = "int f(int n, int m) {\n  vector<vector<int>> dp(n + 1, vector<int>(m + 1, 0));\n  return dp[n][m];\n}\n"
    assert read(cpp, "cpp").text("memory") in ("n·m", "m·n")
    assert read("int f(int n) {\n  int* a = new int[n];\n  return a[0];\n}\n", "cpp").text("memory") == "n"
    java = "class A {\n  int f(int n, int m) {\n    int[][] g = new int[n][m];\n    return g[0][0];\n  }\n}\n"
    assert read(java, "java").text("memory") in ("n·m", "m·n")
    go = "package a\nfunc f(n int) int {\n\tv := make([]int, n)\n\treturn v[0]\n}\n"
    assert read(go, "go").text("memory") == "n"


def test_a_container_passed_by_value_is_copied_at_each_call():
    code = "int g(vector<int> v) { return v[0]; }\n" \
           "int f(vector<int>& xs) {\n  int c = 0;\n  for (int x : xs) c += g(xs);\n  return c;\n}\n"
    assert read(code, "cpp", "f").text("latency") == "n²"
    by_ref = code.replace("g(vector<int> v)", "g(const vector<int>& v)")
    assert read(by_ref, "cpp", "f").text("latency") == "n"


def test_an_unknown_call_is_said_never_free():
    s = read("class A {\n  int f(int[] xs) {\n    return mystery(xs);\n  }\n}\n", "java")
    assert not s.sure and "mystery" in s.unknown[0]


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_what_it_cannot_read_gives_none_never_an_exception(language):
    head = {"cpp": "", "java": "class A {\n", "go": "package a\n"}[language]
    tail = {"cpp": "", "java": "}\n", "go": ""}[language]
    sig = {"cpp": "int f(int n) ", "java": "int f(int n) ", "go": "func f(n int) int "}[language]
    ret = "return " + "(" * 1000 + "n" + ")" * 1000 + (";" if language != "go" else "")
    assert read(head + sig + "{\n" + ret + "\n}\n" + tail, language) is None  # 1,000 nested parentheses
    blocks = head + sig.replace("int f", "void f").replace(") int ", ") ") + "{" * 1001 + "}" * 1001 + "\n" + tail
    assert read(blocks, language) is None  # 1,000 nested blocks
    big = SAMPLES[language] + "\n// " + "x" * (2 * 1024 * 1024) + "\n"
    assert len(big) > MAX_CHARS and read(big, language) is None  # a 2 MB file
    bad = (head + sig + "{ return 1\udcff; }\n" + tail)  # non-UTF-8 bytes, as surrogateescape decodes them
    assert read(bad, language) is None
    assert read(b"\xff\xfe\x00garbage".decode("utf-8", "surrogateescape"), language) is None
    assert read(head + "int x;\n" + tail if language != "go" else "package a\nvar x int\n", language) is None
    assert read("", language) is None


def test_an_unknown_language_gives_none():
    assert read("fn f(n: usize) {}", "rust") is None


def test_each_language_lends_its_front_end_to_a_growth_analyzer():
    for language in SAMPLES:
        cost = readers.own_cost(language)
        assert cost is not None and cost(SAMPLES[language], "nested").text("latency") == "n²"
    growth = CostGrowth(AnalyzerSpec(reference_n=10000))
    p = {"latency": Prediction("latency", 2.0, 1.0, 4.0, "ms"), "memory": Prediction("memory", 1e6, 5e5, 2e6, "bytes")}
    code = "class A {\n  int[][] f(int n) {\n    int[][] g = new int[n][n];\n    return g;\n  }\n}\n"
    out = growth.fold(p, code, language="java")
    assert out["memory"].growth == pytest.approx(2.0) and out["memory"].cost == "n²"
    assert out["latency"].growth == pytest.approx(2.0)


def test_a_go_copy_by_append_to_a_new_slice_keeps_the_length_it_copies():
    """`append([]int(nil), xs...)` is a copy of xs: sorting it is n log n, keeping it n."""
    code = 'package s\nimport "sort"\nfunc SortedCopy(xs []int) []int { c := append([]int(nil), xs...); sort.Ints(c); return c }\n'
    s = read(code, "go")
    assert s.text("latency") == "n·log n" and s.text("memory") == "n"
