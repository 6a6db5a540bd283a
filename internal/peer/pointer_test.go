package peer_test

import (
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/peer"
)

// splitPointer is Pointer as it was, splitting the pointer first: the
// reference the token-by-token walk must agree with.
func splitPointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

var _ = Describe("Pointer, token by token", func() {
	keys := []string{"", "a", "b", "0", "1", "a/b", "c~d", "~1", "~01"}
	var value func(t *rapid.T, depth int) any
	value = func(t *rapid.T, depth int) any {
		switch k := rapid.IntRange(0, 2).Draw(t, "kind"); {
		case k == 0 || depth > 3:
			return rapid.SampledFrom([]any{"x", nil, 1.5}).Draw(t, "leaf")
		case k == 1:
			n := rapid.IntRange(0, 3).Draw(t, "len")
			a := make([]any, n)
			for i := range a {
				a[i] = value(t, depth+1)
			}
			return a
		default:
			m := map[string]any{}
			for range rapid.IntRange(0, 4).Draw(t, "members") {
				m[rapid.SampledFrom(keys).Draw(t, "key")] = value(t, depth+1)
			}
			return m
		}
	}

	It("resolves every pointer as splitting it first did", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			v := value(t, 0)
			toks := rapid.SliceOfN(rapid.SampledFrom([]string{"", "a", "b", "0", "1", "2", "a~1b", "c~0d", "~01", "~", "-1", "x"}), 0, 4).Draw(t, "tokens")
			ptr := rapid.SampledFrom([]string{"/", "", "a/"}).Draw(t, "lead") + strings.Join(toks, "/")
			got, ok := peer.Pointer(v, ptr)
			want, wantOK := splitPointer(v, ptr)
			NewWithT(t).Expect([]any{got, ok}).To(Equal([]any{want, wantOK}), "pointer %q in %#v", ptr, v)
		})
	})
})
