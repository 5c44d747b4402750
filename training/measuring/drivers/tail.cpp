// rlm driver: calls Solution().RLM_ENTRY on each test's arguments, prints one JSON value per test and line
namespace rlm_driver {
template <class M> struct sig;
template <class S, class R, class... A> struct sig<R (S::*)(A...)> { using ret = R; using args = std::tuple<std::decay_t<A>...>; };
template <class S, class R, class... A> struct sig<R (S::*)(A...) const> : sig<R (S::*)(A...)> {};
template <class R, class... A> struct sig<R (*)(A...)> { using ret = R; using args = std::tuple<std::decay_t<A>...>; };
template <class S, class M, class... V> auto invoke(S *s, M m, V &...v) {
    if constexpr (std::is_member_function_pointer_v<M>) return (s->*m)(v...); else return m(v...);
}
template <class S, class M, size_t... I> void call(S *s, M m, const J &args, std::index_sequence<I...>) {
    using T = typename sig<M>::args;
    T vals{conv<std::tuple_element_t<I, T>>::from(args.a.at(I))...};
    if constexpr (std::is_void_v<typename sig<M>::ret>) { invoke(s, m, std::get<I>(vals)...); out += "null"; }
    else { auto r = invoke(s, m, std::get<I>(vals)...); put(r); }
}
template <class S, class M> void call(S *s, M m, const J &args) {
    call(s, m, args, std::make_index_sequence<std::tuple_size_v<typename sig<M>::args>>{});
}
}  // namespace rlm_driver

int main() {
    std::ios::sync_with_stdio(false);
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    rlm_driver::P p(text);
    const rlm_driver::J input = p.val();
    for (const auto &test : rlm_driver::field(input, "tests").a) {
        rlm_driver::J args; args.t = 'a';
        for (const auto &a : rlm_driver::field(test, "args").a) args.a.push_back(rlm_driver::field(a, "json"));
        Solution *s = new Solution();  // on the heap: some solutions hold large arrays as members
        rlm_driver::call(s, &Solution::RLM_ENTRY, args);
        rlm_driver::out += '\n';
        fwrite(rlm_driver::out.data(), 1, rlm_driver::out.size(), stdout);
        rlm_driver::out.clear();
    }
    fflush(stdout);
    return 0;
}
