package certify

import (
	"slices"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// identities collects what the target's processes of a run said they are
// (scenario.Env.Identify, from every lane): the first names the report's
// server; another name or version is kept for a note, since a certificate
// must not claim one server where several answered.
type identities struct {
	mu     sync.Mutex
	first  *report.Server
	others []string
}

func (ids *identities) add(name, version string) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	s := &report.Server{Name: name, Version: version}
	switch {
	case ids.first == nil:
		ids.first = s
	case *s != *ids.first && !slices.Contains(ids.others, s.String()):
		ids.others = append(ids.others, s.String())
	}
}

// certify fills in what rep certifies: the server as it named itself, the
// revision of a run of one, and the documents the report's rules cite (in
// every revision of a run over several).
func (ids *identities) certify(rep *report.Report, client bool, ps ...*spec.Protocol) {
	if rep == nil {
		return
	}
	ids.mu.Lock()
	who, named := "server", &rep.Server
	if client {
		// The target is a client: it is what the report certifies, and
		// the server (wirecheck) is no claim of the report's.
		rep.Role, who, named = "client", "client", &rep.Client
	}
	*named = ids.first
	if len(ids.others) > 0 {
		rep.Notes = append(rep.Notes, "the "+who+" named itself "+ids.first.String()+" and, in other processes of the run, "+strings.Join(ids.others, ", "))
	}
	ids.mu.Unlock()
	if len(ps) == 1 && ps[0].Versions != nil {
		rep.Revision = ps[0].Version
	}
	var rules []string
	for _, r := range rep.Rules {
		rules = append(rules, r.ID)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if len(rules) == 0 {
			break
		}
		for _, d := range p.Cited(rules...) {
			if !seen[d.Name] {
				seen[d.Name] = true
				rep.Documents = append(rep.Documents, report.Document{Name: d.Name, Title: d.Title, File: d.File, URL: d.URL, SHA256: d.SHA256})
			}
		}
	}
}
