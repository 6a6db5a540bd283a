package transport

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize takes, longest first so "MiB" is
// not read as "B" after a number "M".
var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
	{"B", 1},
}

// ParseSize reads a size in bytes: a whole number, alone or followed by
// B, KiB, MiB, GiB (powers of 1024), KB, MB, GB (powers of 1000), or K,
// M, G (read as KiB, MiB, GiB), in any case. It refuses zero, negatives
// and sizes that do not fit an int.
func ParseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range sizeUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size: want a positive whole number of bytes, optionally with a unit (64MiB, 16MB, 1048576)", s)
	}
	if n > int64(^uint(0)>>1)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int(n * mult), nil
}

// SizeString writes n bytes the way a user would type it back: in the
// largest binary unit that divides it, else in bytes.
func SizeString(n int) string {
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.Itoa(n/u.mult) + u.suffix
		}
	}
	return strconv.Itoa(n) + "B"
}
