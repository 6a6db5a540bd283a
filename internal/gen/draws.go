package gen

import (
	"fmt"

	"pgregory.net/rapid"
)

// localTries is how often a sub-value is retried before its parent's
// attempt is abandoned too; it matches rapid's own retry count for Custom.
const localTries = 5

// rejection abandons the current attempt. It is a private panic value so
// the retry loops never swallow rapid's own control-flow panics.
type rejection struct {
	format string
	args   []any
}

func (r rejection) Error() string {
	return "gen: " + fmt.Sprintf(r.format, r.args...)
}

// reject formats nothing until a rejection reaches rapid, because most
// rejections are retried and forgotten.
func reject(format string, args ...any) {
	panic(rejection{format, args})
}

// Generators are allocated once: rapid.Bool() and rapid.IntRange(...) per
// draw were a measurable share of generation time.
var (
	boolGen   = rapid.Bool()
	indexGens [128]*rapid.Generator[int]
)

func init() {
	for n := range indexGens {
		if n > 0 {
			indexGens[n] = rapid.IntRange(0, n-1)
		}
	}
}

// index draws from [0, n).
func index(t *rapid.T, n int, label string) int {
	switch {
	case n <= 0:
		reject("nothing to choose from for %s", label)
	case n < len(indexGens):
		return indexGens[n].Draw(t, label)
	}
	return rapid.IntRange(0, n-1).Draw(t, label)
}

// intIn draws from [lo, hi] through the cached index generators when the
// range is small, which is most draws.
func intIn(t *rapid.T, lo, hi int, label string) int {
	if hi-lo+1 < len(indexGens) {
		return lo + index(t, hi-lo+1, label)
	}
	return rapid.IntRange(lo, hi).Draw(t, label)
}
