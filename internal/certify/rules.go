package certify

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// CheckRules refuses a --rules glob that selects no rule of the
// protocol's catalogue: a typo would otherwise run nothing of what was
// meant and pass (exit 0), where a --scenario typo is refused. The error
// names the closest rule IDs, or families of them for a glob.
func CheckRules(p *spec.Protocol, globs []string) error {
	ids := catalogue(p)
	var bad []string
	for _, g := range globs {
		if !selectsAny(g, ids) {
			bad = append(bad, fmt.Sprintf("--rules %q matches no rule of %s%s", g, p.ID, didYouMean(g, ids)))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%s (wirecheck rules --protocol %s lists them)", strings.Join(bad, "; "), p.ID)
}

// checkBaseline refuses a baseline entry naming a rule the catalogue does
// not have: it can excuse nothing, and it would only ever be noted as
// "not judged", which reads like a rule this run happened to skip.
func checkBaseline(p *spec.Protocol, b *report.Baseline) error {
	ids := catalogue(p)
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	var bad []string
	for _, e := range b.Entries() {
		if !known[e.Rule] {
			bad = append(bad, fmt.Sprintf("%s: %s is no rule of %s%s", e.At, e.Rule, p.ID, didYouMean(e.Rule, ids)))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("--baseline: %s (wirecheck rules --protocol %s lists them)", strings.Join(bad, "; "), p.ID)
}

func catalogue(p *spec.Protocol) []string {
	ids := make([]string, 0, len(p.Rules))
	for _, r := range p.Rules {
		ids = append(ids, r.ID)
	}
	return ids
}

func selectsAny(glob string, ids []string) bool {
	for _, id := range ids {
		if ok, _ := path.Match(glob, id); ok {
			return true
		}
	}
	return false
}

// maxSuggestions is how many near names an error offers.
const maxSuggestions = 3

// didYouMean is ", did you mean A, B or C?" naming the IDs nearest to
// want, or "" when there are none. A glob (with *, ? or [) is offered
// rule families as well ("SONDE-ID-*", every prefix of an ID that ends
// at a dash), since a glob is usually a family with a typo in it. Near is
// the edit distance, case ignored (IDs are upper case, a typed glob often
// is not), and among equals the longer common prefix.
func didYouMean(want string, ids []string) string {
	cands := map[string]bool{}
	for _, id := range ids {
		cands[id] = true
		if strings.ContainsAny(want, "*?[") {
			for i := range len(id) {
				if id[i] == '-' {
					cands[id[:i+1]+"*"] = true
				}
			}
		}
	}
	w := strings.ToUpper(want)
	type scored struct {
		name         string
		dist, prefix int
	}
	var all []scored
	for c := range cands {
		all = append(all, scored{c, spec.EditDistance(w, c), commonPrefix(w, c)})
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		if a.prefix != b.prefix {
			return a.prefix > b.prefix
		}
		return a.name < b.name
	})
	var names []string
	for _, s := range all {
		// Nothing alike: no suggestion beats a wrong one.
		if len(names) == maxSuggestions || s.dist > max(len(w), len(s.name))*2/3 {
			break
		}
		names = append(names, s.name)
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + names[0] + "?"
	}
	return "; did you mean " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + "?"
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
