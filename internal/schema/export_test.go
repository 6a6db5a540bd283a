package schema

// SkipValue is how far lazyDoc's skip passes over the value at the
// start of b, for the tests.
func SkipValue(b []byte) (int, bool) {
	d := decoder{b: b}
	ok := d.skip()
	return d.i, ok
}
