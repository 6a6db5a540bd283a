package fuzz_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// A history's units may refer to the answer of an earlier unit's send (a
// tasks/get to the taskId a call made): shrinking drops units, and must
// never keep one whose producer it dropped, for replay refuses a
// reproducer that refers to a send no step has.
var _ = Describe("shrinking a history whose requests refer to earlier answers", func() {
	// history: unit i sends ri; each refers to the send of at most one
	// earlier unit (-1: none).
	history := func(refs []int) [][]scenario.Step {
		out := make([][]scenario.Step, len(refs))
		for i, r := range refs {
			params := map[string]any{}
			if r >= 0 {
				params["taskId"] = map[string]any{"$from": fmt.Sprintf("r%d", r), "$path": "/result/task/taskId"}
			}
			name := fmt.Sprintf("r%d", i)
			out[i] = []scenario.Step{{Send: map[string]any{"method": "m", "params": params}, As: name}, {Expect: name}}
		}
		return out
	}
	// dangling lists the references of a candidate to a send no earlier
	// unit of it has.
	dangling := func(us [][]scenario.Step) []string {
		named := map[string]bool{}
		var out []string
		for _, steps := range us {
			for _, st := range steps {
				if m, ok := st.Send.(map[string]any); ok {
					p, _ := m["params"].(map[string]any)
					if ref, ok := p["taskId"].(map[string]any); ok && !named[ref["$from"].(string)] {
						out = append(out, ref["$from"].(string))
					}
				}
				if st.As != "" {
					named[st.As] = true
				}
			}
		}
		return out
	}
	has := func(us [][]scenario.Step, name string) bool {
		for _, steps := range us {
			if steps[0].As == name {
				return true
			}
		}
		return false
	}

	It("drops the units that refer to a dropped one, and keeps the chain a failure needs", func() {
		// r3 refers to r1, r4 to r3: a failure of r4 needs r1, r3, r4.
		var seen int
		got := fuzz.ShrinkHistory(history([]int{-1, -1, -1, 1, 3, 1, -1}), func(us [][]scenario.Step) bool {
			seen++
			Expect(dangling(us)).To(BeEmpty(), "a candidate refers to a dropped send")
			return has(us, "r4")
		})
		Expect(seen).To(BeNumerically(">", 0))
		var names []string
		for _, steps := range got {
			names = append(names, steps[0].As)
		}
		Expect(names).To(Equal([]string{"r1", "r3", "r4"}))
	})

	It("hands no candidate a dangling reference, whatever the references and the failure", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			n := rapid.IntRange(1, 12).Draw(t, "units")
			refs := make([]int, n)
			for i := range refs {
				refs[i] = rapid.IntRange(-1, i-1).Draw(t, fmt.Sprintf("ref %d", i))
			}
			need := fmt.Sprintf("r%d", rapid.IntRange(0, n-1).Draw(t, "failing unit"))
			got := fuzz.ShrinkHistory(history(refs), func(us [][]scenario.Step) bool {
				if d := dangling(us); len(d) > 0 {
					t.Fatalf("a candidate refers to dropped sends %v", d)
				}
				return has(us, need)
			})
			if d := dangling(got); len(d) > 0 || !has(got, need) {
				t.Fatalf("shrunk to %d units, dangling %v, failing unit kept: %v", len(got), d, has(got, need))
			}
		})
	})
})
