// min and max are builtins from Go 1.21; Debian 12's Go is 1.19
type rlmOrdered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64 | ~string
}

func min[T rlmOrdered](a T, rest ...T) T {
	for _, b := range rest {
		if b < a {
			a = b
		}
	}
	return a
}

func max[T rlmOrdered](a T, rest ...T) T {
	for _, b := range rest {
		if b > a {
			a = b
		}
	}
	return a
}
