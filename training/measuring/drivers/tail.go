// rlm driver (training/measuring/drivers): reads {"tests": [{"args": [{"json": v}, ...]}, ...]} on stdin,
// calls RLM_ENTRY on each test's arguments, prints one JSON value per test and line

func rlmCheck(t rlmReflect.Type) string {
	switch t.Kind() {
	case rlmReflect.Int, rlmReflect.Int64, rlmReflect.Int32, rlmReflect.Int16, rlmReflect.Uint8, rlmReflect.Float64,
		rlmReflect.Float32, rlmReflect.Bool, rlmReflect.String:
		return ""
	case rlmReflect.Slice:
		return rlmCheck(t.Elem())
	case rlmReflect.Ptr:
		if t.Elem() == rlmReflect.TypeOf(ListNode{}) || t.Elem() == rlmReflect.TypeOf(TreeNode{}) {
			return ""
		}
	}
	return t.String()
}

func rlmInt(v interface{}) int64 {
	switch x := v.(type) {
	case rlmJSON.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return int64(f)
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

func rlmBuild(v interface{}, t rlmReflect.Type) rlmReflect.Value {
	out := rlmReflect.New(t).Elem()
	switch t.Kind() {
	case rlmReflect.Int, rlmReflect.Int64, rlmReflect.Int32, rlmReflect.Int16:
		out.SetInt(rlmInt(v))
	case rlmReflect.Uint8: // LeetCode's Go writes a character as byte
		if s, ok := v.(string); ok && len(s) > 0 {
			out.SetUint(uint64(s[0]))
		} else {
			out.SetUint(uint64(rlmInt(v)))
		}
	case rlmReflect.Float64, rlmReflect.Float32:
		f, _ := v.(rlmJSON.Number).Float64()
		out.SetFloat(f)
	case rlmReflect.Bool:
		b, ok := v.(bool)
		out.SetBool(b || (!ok && rlmInt(v) != 0))
	case rlmReflect.String:
		s, _ := v.(string)
		out.SetString(s)
	case rlmReflect.Slice:
		a, _ := v.([]interface{})
		if s, ok := v.(string); ok && t.Elem().Kind() == rlmReflect.Uint8 {
			return rlmReflect.ValueOf([]byte(s)).Convert(t)
		}
		out = rlmReflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			out.Index(i).Set(rlmBuild(e, t.Elem()))
		}
	case rlmReflect.Ptr:
		a, _ := v.([]interface{})
		if t.Elem() == rlmReflect.TypeOf(ListNode{}) {
			head := &ListNode{}
			cur := head
			for _, e := range a {
				cur.Next = &ListNode{Val: int(rlmInt(e))}
				cur = cur.Next
			}
			return rlmReflect.ValueOf(head.Next)
		}
		if len(a) == 0 || a[0] == nil {
			return out
		}
		root := &TreeNode{Val: int(rlmInt(a[0]))}
		q := []*TreeNode{root}
		for i := 1; len(q) > 0 && i < len(a); {
			n := q[0]
			q = q[1:]
			if i < len(a) && a[i] != nil {
				n.Left = &TreeNode{Val: int(rlmInt(a[i]))}
				q = append(q, n.Left)
			}
			i++
			if i < len(a) && a[i] != nil {
				n.Right = &TreeNode{Val: int(rlmInt(a[i]))}
				q = append(q, n.Right)
			}
			i++
		}
		return rlmReflect.ValueOf(root)
	}
	return out
}

func rlmStr(b *[]byte, s string) {
	*b = append(*b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' {
			*b = append(*b, '\\', c)
		} else if c < 0x20 {
			*b = append(*b, []byte(rlmFmt.Sprintf("\\u%04x", c))...)
		} else {
			*b = append(*b, c)
		}
	}
	*b = append(*b, '"')
}

func rlmPut(b *[]byte, v rlmReflect.Value) {
	switch v.Kind() {
	case rlmReflect.Int, rlmReflect.Int64, rlmReflect.Int32, rlmReflect.Int16, rlmReflect.Int8:
		*b = rlmStrconv.AppendInt(*b, v.Int(), 10)
	case rlmReflect.Uint8:
		rlmStr(b, string([]byte{byte(v.Uint())}))
	case rlmReflect.Uint, rlmReflect.Uint16, rlmReflect.Uint32, rlmReflect.Uint64:
		*b = rlmStrconv.AppendUint(*b, v.Uint(), 10)
	case rlmReflect.Float64, rlmReflect.Float32:
		f := v.Float()
		if rlmMath.IsNaN(f) {
			*b = append(*b, []byte(`"nan"`)...)
		} else if rlmMath.IsInf(f, 0) {
			if f > 0 {
				*b = append(*b, []byte(`"inf"`)...)
			} else {
				*b = append(*b, []byte(`"-inf"`)...)
			}
		} else {
			*b = rlmStrconv.AppendFloat(*b, f, 'g', 17, 64)
		}
	case rlmReflect.Bool:
		*b = rlmStrconv.AppendBool(*b, v.Bool())
	case rlmReflect.String:
		rlmStr(b, v.String())
	case rlmReflect.Slice, rlmReflect.Array:
		*b = append(*b, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				*b = append(*b, ',')
			}
			rlmPut(b, v.Index(i))
		}
		*b = append(*b, ']')
	case rlmReflect.Interface:
		if v.IsNil() {
			*b = append(*b, []byte("null")...)
		} else {
			rlmPut(b, v.Elem())
		}
	case rlmReflect.Ptr:
		if l, ok := v.Interface().(*ListNode); ok {
			*b = append(*b, '[')
			for n := 0; l != nil && n < 2000000; l, n = l.Next, n+1 {
				if n > 0 {
					*b = append(*b, ',')
				}
				*b = rlmStrconv.AppendInt(*b, int64(l.Val), 10)
			}
			*b = append(*b, ']')
		} else if t, ok := v.Interface().(*TreeNode); ok {
			q := []*TreeNode{t}
			for i := 0; i < len(q) && i < 2000000; i++ {
				if q[i] != nil {
					q = append(q, q[i].Left, q[i].Right)
				}
			}
			for len(q) > 0 && q[len(q)-1] == nil {
				q = q[:len(q)-1]
			}
			*b = append(*b, '[')
			for i, n := range q {
				if i > 0 {
					*b = append(*b, ',')
				}
				if n == nil {
					*b = append(*b, []byte("null")...)
				} else {
					*b = rlmStrconv.AppendInt(*b, int64(n.Val), 10)
				}
			}
			*b = append(*b, ']')
		} else {
			*b = append(*b, []byte("null")...)
		}
	default:
		*b = append(*b, []byte("null")...)
	}
}

func main() {
	fn := rlmReflect.ValueOf(RLM_ENTRY)
	ft := fn.Type()
	for i := 0; i < ft.NumIn(); i++ {
		if bad := rlmCheck(ft.In(i)); bad != "" {
			rlmFmt.Fprintln(rlmOs.Stderr, "RLM_UNSUPPORTED_TYPE:", bad)
			rlmOs.Exit(3)
		}
	}
	if ft.NumOut() > 1 {
		rlmFmt.Fprintln(rlmOs.Stderr, "RLM_UNSUPPORTED_TYPE: more than one result")
		rlmOs.Exit(3)
	}
	for i := 0; i < ft.NumOut(); i++ {
		if bad := rlmCheck(ft.Out(i)); bad != "" {
			rlmFmt.Fprintln(rlmOs.Stderr, "RLM_UNSUPPORTED_TYPE:", bad)
			rlmOs.Exit(3)
		}
	}
	dec := rlmJSON.NewDecoder(rlmBufio.NewReader(rlmOs.Stdin))
	dec.UseNumber()
	var input map[string]interface{}
	if err := dec.Decode(&input); err != nil {
		rlmFmt.Fprintln(rlmOs.Stderr, "RLM_BAD_INPUT:", err)
		rlmOs.Exit(4)
	}
	tests, _ := input["tests"].([]interface{})
	for _, test := range tests {
		args, _ := test.(map[string]interface{})["args"].([]interface{})
		in := make([]rlmReflect.Value, ft.NumIn())
		for i := range in {
			in[i] = rlmBuild(args[i].(map[string]interface{})["json"], ft.In(i))
		}
		res := fn.Call(in)
		b := []byte{}
		if len(res) == 0 {
			b = append(b, []byte("null")...)
		} else {
			rlmPut(&b, res[0])
		}
		b = append(b, '\n')
		rlmOs.Stdout.Write(b)
	}
}
