// rlm driver library (training/measuring/drivers): a JSON reader, the arguments built by type (conv), the
// results printed as JSON (put); tail.cpp calls the entry.  Before the solution, so a solution can use it.
namespace rlm_driver {
struct J { char t = 'n'; bool b = false; long long i = 0; double d = 0; std::string s; std::vector<J> a; std::vector<std::pair<std::string, J>> o; };
struct P {
    const std::string &x; size_t k = 0;
    explicit P(const std::string &x) : x(x) {}
    void ws() { while (k < x.size() && isspace((unsigned char)x[k])) k++; }
    [[noreturn]] void fail() { fprintf(stderr, "RLM_BAD_INPUT at %zu\n", k); exit(4); }
    void hex(std::string &s) {
        unsigned c = std::stoul(x.substr(k, 4), nullptr, 16); k += 4;
        if (c >= 0xD800 && c < 0xDC00 && k + 6 <= x.size() && x[k] == '\\' && x[k + 1] == 'u') {
            unsigned lo = std::stoul(x.substr(k + 2, 4), nullptr, 16); k += 6;
            c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (c < 0x80) s += (char)c;
        else if (c < 0x800) { s += (char)(0xC0 | (c >> 6)); s += (char)(0x80 | (c & 63)); }
        else if (c < 0x10000) { s += (char)(0xE0 | (c >> 12)); s += (char)(0x80 | ((c >> 6) & 63)); s += (char)(0x80 | (c & 63)); }
        else { s += (char)(0xF0 | (c >> 18)); s += (char)(0x80 | ((c >> 12) & 63)); s += (char)(0x80 | ((c >> 6) & 63)); s += (char)(0x80 | (c & 63)); }
    }
    std::string str() {
        std::string s; k++;
        while (k < x.size() && x[k] != '"') {
            if (x[k] == '\\') {
                char e = x[++k]; k++;
                if (e == 'n') s += '\n'; else if (e == 't') s += '\t'; else if (e == 'r') s += '\r';
                else if (e == 'b') s += '\b'; else if (e == 'f') s += '\f'; else if (e == 'u') hex(s); else s += e;
            } else s += x[k++];
        }
        k++;
        return s;
    }
    J val() {
        ws(); J v;
        if (k >= x.size()) fail();
        char c = x[k];
        if (c == '[') {
            v.t = 'a'; k++; ws();
            if (x[k] == ']') { k++; return v; }
            while (true) { v.a.push_back(val()); ws(); if (x[k] == ',') { k++; continue; } if (x[k] == ']') { k++; break; } fail(); }
        } else if (c == '{') {
            v.t = 'o'; k++; ws();
            if (x[k] == '}') { k++; return v; }
            while (true) {
                ws(); std::string key = str(); ws(); if (x[k] != ':') fail(); k++;
                v.o.emplace_back(key, val()); ws();
                if (x[k] == ',') { k++; continue; } if (x[k] == '}') { k++; break; } fail();
            }
        } else if (c == '"') { v.t = 's'; v.s = str(); }
        else if (x.compare(k, 4, "true") == 0) { v.t = 'b'; v.b = true; k += 4; }
        else if (x.compare(k, 5, "false") == 0) { v.t = 'b'; k += 5; }
        else if (x.compare(k, 4, "null") == 0) { k += 4; }
        else {
            size_t e = k; bool real = false;
            while (e < x.size() && strchr("+-0123456789.eE", x[e])) { real |= strchr(".eE", x[e]) != nullptr; e++; }
            if (e == k) fail();
            std::string num = x.substr(k, e - k); k = e;
            if (real) { v.t = 'd'; v.d = strtod(num.c_str(), nullptr); } else { v.t = 'i'; v.i = strtoll(num.c_str(), nullptr, 10); v.d = (double)v.i; }
        }
        return v;
    }
};
const J &field(const J &o, const char *name) {
    static J none;
    for (auto &kv : o.o) if (kv.first == name) return kv.second;
    return none;
}

template <class T, class = void> struct conv {
    static_assert(sizeof(T) == 0, "RLM_UNSUPPORTED_TYPE: the driver cannot build this argument type");
};
template <class T> struct conv<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>>> {
    static T from(const J &v) { return v.t == 'd' ? (T)v.d : v.t == 'b' ? (T)v.b : (T)v.i; }
};
template <class T> struct conv<T, std::enable_if_t<std::is_floating_point_v<T>>> {
    static T from(const J &v) { return v.t == 'i' ? (T)v.i : (T)v.d; }
};
template <> struct conv<bool> { static bool from(const J &v) { return v.t == 'b' ? v.b : v.i != 0; } };
template <> struct conv<char> { static char from(const J &v) { return v.t == 's' ? (v.s.empty() ? '\0' : v.s[0]) : (char)v.i; } };
template <> struct conv<std::string> { static std::string from(const J &v) { return v.s; } };
template <class T> struct conv<std::vector<T>> {
    static std::vector<T> from(const J &v) { std::vector<T> out; out.reserve(v.a.size()); for (auto &e : v.a) out.push_back(conv<T>::from(e)); return out; }
};
template <> struct conv<ListNode *> {
    static ListNode *from(const J &v) {
        ListNode head, *cur = &head;
        for (auto &e : v.a) { cur->next = new ListNode((int)e.i); cur = cur->next; }
        return head.next;
    }
};
template <> struct conv<TreeNode *> {
    static TreeNode *from(const J &v) {
        if (v.a.empty() || v.a[0].t == 'n') return nullptr;
        TreeNode *root = new TreeNode((int)v.a[0].i);
        std::deque<TreeNode *> q{root};
        size_t i = 1;
        while (!q.empty() && i < v.a.size()) {
            TreeNode *n = q.front(); q.pop_front();
            if (i < v.a.size() && v.a[i].t != 'n') { n->left = new TreeNode((int)v.a[i].i); q.push_back(n->left); }
            i++;
            if (i < v.a.size() && v.a[i].t != 'n') { n->right = new TreeNode((int)v.a[i].i); q.push_back(n->right); }
            i++;
        }
        return root;
    }
};

std::string out;
template <class T> void put(const T &) {
    static_assert(sizeof(T) == 0, "RLM_UNSUPPORTED_TYPE: the driver cannot print this return type");
}
void put_str(const std::string &s) {
    out += '"';
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += (char)c; }
        else if (c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); out += b; }
        else out += (char)c;
    }
    out += '"';
}
void put(const std::string &s) { put_str(s); }
void put(char c) { put_str(std::string(1, c)); }
void put(bool b) { out += b ? "true" : "false"; }
void put(int v) { out += std::to_string(v); }
void put(long v) { out += std::to_string(v); }
void put(long long v) { out += std::to_string(v); }
void put(unsigned v) { out += std::to_string(v); }
void put(unsigned long v) { out += std::to_string(v); }
void put(unsigned long long v) { out += std::to_string(v); }
void put(double v) {
    if (std::isnan(v)) out += "\"nan\""; else if (std::isinf(v)) out += v > 0 ? "\"inf\"" : "\"-inf\"";
    else { char b[32]; snprintf(b, sizeof b, "%.17g", v); out += b; }
}
void put(float v) { put((double)v); }
void put(ListNode *n) {
    out += '['; long count = 0;
    for (; n && count < 2000000; n = n->next, count++) { if (count) out += ','; put(n->val); }
    out += ']';
}
void put(TreeNode *root) {
    std::vector<TreeNode *> q{root};
    size_t i = 0;
    while (i < q.size() && i < 2000000) { TreeNode *n = q[i++]; if (n) { q.push_back(n->left); q.push_back(n->right); } }
    while (!q.empty() && !q.back()) q.pop_back();
    out += '[';
    for (size_t j = 0; j < q.size(); j++) { if (j) out += ','; if (q[j]) put(q[j]->val); else out += "null"; }
    out += ']';
}
template <class T> void put(const std::vector<T> &v) {
    out += '[';
    for (size_t j = 0; j < v.size(); j++) { if (j) out += ','; put((T)v[j]); }
    out += ']';
}

}  // namespace rlm_driver
