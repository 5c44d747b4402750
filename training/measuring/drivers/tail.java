// rlm driver (training/measuring/drivers): reads {"tests": [{"args": [{"json": v}, ...]}, ...]} on stdin,
// calls new Solution().RLM_ENTRY on each test's arguments, prints one JSON value per test and line
class RlmMain {
    static final class Unsupported extends RuntimeException { Unsupported(String m) { super(m); } }
    static String x; static int k;
    static void ws() { while (k < x.length() && Character.isWhitespace(x.charAt(k))) k++; }
    static String str() {
        StringBuilder s = new StringBuilder(); k++;
        while (x.charAt(k) != '"') {
            char c = x.charAt(k++);
            if (c != '\\') { s.append(c); continue; }
            char e = x.charAt(k++);
            switch (e) {
                case 'n': s.append('\n'); break; case 't': s.append('\t'); break; case 'r': s.append('\r'); break;
                case 'b': s.append('\b'); break; case 'f': s.append('\f'); break;
                case 'u': s.append((char) Integer.parseInt(x.substring(k, k + 4), 16)); k += 4; break;
                default: s.append(e);
            }
        }
        k++;
        return s.toString();
    }
    static Object val() {
        ws();
        char c = x.charAt(k);
        if (c == '[') {
            ArrayList<Object> a = new ArrayList<>(); k++; ws();
            if (x.charAt(k) == ']') { k++; return a; }
            while (true) { a.add(val()); ws(); if (x.charAt(k++) == ']') return a; }
        }
        if (c == '{') {
            LinkedHashMap<String, Object> o = new LinkedHashMap<>(); k++; ws();
            if (x.charAt(k) == '}') { k++; return o; }
            while (true) { ws(); String key = str(); ws(); k++; o.put(key, val()); ws(); if (x.charAt(k++) == '}') return o; }
        }
        if (c == '"') return str();
        if (x.startsWith("true", k)) { k += 4; return Boolean.TRUE; }
        if (x.startsWith("false", k)) { k += 5; return Boolean.FALSE; }
        if (x.startsWith("null", k)) { k += 4; return null; }
        int e = k; boolean real = false;
        while (e < x.length() && "+-0123456789.eE".indexOf(x.charAt(e)) >= 0) { real |= ".eE".indexOf(x.charAt(e)) >= 0; e++; }
        String num = x.substring(k, e); k = e;
        return real ? (Object) Double.parseDouble(num) : (Object) Long.parseLong(num);
    }

    static long asLong(Object v) { return v instanceof Boolean ? (((Boolean) v) ? 1 : 0) : ((Number) v).longValue(); }
    static java.lang.reflect.Type element(java.lang.reflect.Type t) {
        if (t instanceof java.lang.reflect.ParameterizedType) {
            java.lang.reflect.ParameterizedType p = (java.lang.reflect.ParameterizedType) t;
            Class<?> raw = (Class<?>) p.getRawType();
            if (raw == List.class || raw == ArrayList.class || raw == Collection.class || raw == Iterable.class)
                return p.getActualTypeArguments()[0];
        }
        return null;
    }
    /** Throws Unsupported before any input is read when the signature has a type the driver cannot build. */
    static void check(java.lang.reflect.Type t) {
        if (t instanceof Class) {
            Class<?> c = (Class<?>) t;
            if (c.isArray()) { check(c.getComponentType()); return; }
            if (c.isPrimitive() || c == String.class || c == Integer.class || c == Long.class || c == Double.class
                || c == Boolean.class || c == Character.class || c == ListNode.class || c == TreeNode.class) return;
        } else if (element(t) != null) { check(element(t)); return; }
        throw new Unsupported(t.getTypeName());
    }
    static Object build(Object v, java.lang.reflect.Type t) {
        if (t instanceof Class) {
            Class<?> c = (Class<?>) t;
            if (c == int.class || c == Integer.class) return (int) asLong(v);
            if (c == long.class || c == Long.class) return asLong(v);
            if (c == short.class) return (short) asLong(v);
            if (c == double.class || c == Double.class) return ((Number) v).doubleValue();
            if (c == float.class) return ((Number) v).floatValue();
            if (c == boolean.class || c == Boolean.class) return v instanceof Boolean ? v : asLong(v) != 0;
            if (c == char.class || c == Character.class) return v instanceof String ? ((String) v).charAt(0) : (char) asLong(v);
            if (c == String.class) return v;
            if (c == ListNode.class) {
                ListNode head = new ListNode(), cur = head;
                for (Object e : (List<?>) v) { cur.next = new ListNode((int) asLong(e)); cur = cur.next; }
                return head.next;
            }
            if (c == TreeNode.class) {
                List<?> a = (List<?>) v;
                if (a == null || a.isEmpty() || a.get(0) == null) return null;
                TreeNode root = new TreeNode((int) asLong(a.get(0)));
                ArrayDeque<TreeNode> q = new ArrayDeque<>(); q.add(root);
                int i = 1;
                while (!q.isEmpty() && i < a.size()) {
                    TreeNode n = q.poll();
                    if (i < a.size() && a.get(i) != null) { n.left = new TreeNode((int) asLong(a.get(i))); q.add(n.left); }
                    i++;
                    if (i < a.size() && a.get(i) != null) { n.right = new TreeNode((int) asLong(a.get(i))); q.add(n.right); }
                    i++;
                }
                return root;
            }
            if (c.isArray()) {
                List<?> a = (List<?>) v;
                Object arr = java.lang.reflect.Array.newInstance(c.getComponentType(), a.size());
                for (int i = 0; i < a.size(); i++) java.lang.reflect.Array.set(arr, i, build(a.get(i), c.getComponentType()));
                return arr;
            }
        }
        java.lang.reflect.Type e = element(t);
        ArrayList<Object> out = new ArrayList<>();
        for (Object o : (List<?>) v) out.add(build(o, e));
        return out;
    }

    static StringBuilder out = new StringBuilder();
    static void putStr(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        out.append('"');
    }
    static void put(Object v) {
        if (v == null) out.append("null");
        else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) out.append("\"nan\""); else if (Double.isInfinite(d)) out.append(d > 0 ? "\"inf\"" : "\"-inf\"");
            else out.append(d);
        }
        else if (v instanceof Number || v instanceof Boolean) out.append(v);
        else if (v instanceof Character) putStr(String.valueOf(v));
        else if (v instanceof String) putStr((String) v);
        else if (v instanceof ListNode) {
            out.append('['); int n = 0;
            for (ListNode p = (ListNode) v; p != null && n < 2000000; p = p.next, n++) { if (n > 0) out.append(','); out.append(p.val); }
            out.append(']');
        } else if (v instanceof TreeNode) {
            ArrayList<TreeNode> q = new ArrayList<>(); q.add((TreeNode) v);
            for (int i = 0; i < q.size() && i < 2000000; i++) { TreeNode n = q.get(i); if (n != null) { q.add(n.left); q.add(n.right); } }
            while (!q.isEmpty() && q.get(q.size() - 1) == null) q.remove(q.size() - 1);
            out.append('[');
            for (int i = 0; i < q.size(); i++) { if (i > 0) out.append(','); if (q.get(i) == null) out.append("null"); else out.append(q.get(i).val); }
            out.append(']');
        } else if (v.getClass().isArray()) {
            out.append('[');
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) { if (i > 0) out.append(','); put(java.lang.reflect.Array.get(v, i)); }
            out.append(']');
        } else if (v instanceof Iterable) {
            out.append('['); boolean first = true;
            for (Object o : (Iterable<?>) v) { if (!first) out.append(','); first = false; put(o); }
            out.append(']');
        } else throw new Unsupported(v.getClass().getName());
    }

    static void run() throws Exception {
        java.lang.reflect.Method m = null;
        for (java.lang.reflect.Method c : Solution.class.getDeclaredMethods())
            if (c.getName().equals("RLM_ENTRY")) {
                if (m != null) throw new Unsupported("overloaded method RLM_ENTRY");
                m = c;
            }
        if (m == null) throw new Unsupported("no method RLM_ENTRY in class Solution");
        m.setAccessible(true);
        java.lang.reflect.Type[] types = m.getGenericParameterTypes();
        for (java.lang.reflect.Type t : types) check(t);
        if (m.getReturnType() != void.class) check(m.getGenericReturnType());
        x = new String(System.in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8); k = 0;
        Map<?, ?> input = (Map<?, ?>) val();
        java.io.PrintStream stdout = new java.io.PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
        for (Object test : (List<?>) input.get("tests")) {
            List<?> args = (List<?>) ((Map<?, ?>) test).get("args");
            Object[] vals = new Object[types.length];
            for (int i = 0; i < types.length; i++) vals[i] = build(((Map<?, ?>) args.get(i)).get("json"), types[i]);
            java.lang.reflect.Constructor<Solution> ctor = Solution.class.getDeclaredConstructor();
            ctor.setAccessible(true);
            Object r = m.invoke(java.lang.reflect.Modifier.isStatic(m.getModifiers()) ? null : ctor.newInstance(), vals);
            put(m.getReturnType() == void.class ? null : r);
            out.append('\n');
            stdout.print(out); stdout.flush(); out.setLength(0);
        }
    }
    public static void main(String[] argv) throws Exception {
        Throwable[] err = new Throwable[1];
        // a big stack for deep recursion (LeetCode's trees and DFS): the main thread's is fixed at start
        Thread t = new Thread(null, () -> { try { run(); } catch (Throwable e) { err[0] = e; } }, "rlm", 512L << 20);
        t.start(); t.join();
        if (err[0] instanceof Unsupported) { System.err.println("RLM_UNSUPPORTED_TYPE: " + err[0].getMessage()); System.exit(3); }
        if (err[0] != null) {
            Throwable e = err[0] instanceof java.lang.reflect.InvocationTargetException ? err[0].getCause() : err[0];
            if (e instanceof OutOfMemoryError) { System.err.println("RLM_OUT_OF_MEMORY: " + e); System.exit(5); }
            e.printStackTrace(); System.exit(1);
        }
    }
}
