package spec

import (
	"cmp"
	"fmt"
	"github.com/wirecheck/wirecheck/internal/transport"
	"slices"
	"strings"
)

// defaultTransports is what a spec that names none is reached over.
var defaultTransports = []string{"stdio"}

// ForTransport returns the protocol resolved for one of its transports
// ("": its first): a built-in check stands only for the rules that hold
// on that transport (RulesForCheck), and the tally reports the others
// skipped with their reason, in one place, whatever the scenarios do. It
// keeps the revision the protocol was resolved for, and ForVersion keeps
// the transport.
func (p *Protocol) ForTransport(tr string) (*Protocol, error) {
	if tr == "" {
		tr = p.Transports[0]
	}
	if tr == p.Transport {
		return p, nil
	}
	if !slices.Contains(p.Transports, tr) {
		return nil, fmt.Errorf("protocol %s has no transport %q (known: %s)", p.ID, tr, strings.Join(p.Transports, ", "))
	}
	q := *p
	q.Transport = tr
	q.index()
	return &q, nil
}

// Applies reports whether a rule holds in the revision and on the
// transport the protocol was resolved for.
func (p *Protocol) Applies(r *Rule) bool {
	return p.InRevision(r, p.Version) && r.AppliesOn(p.Transport)
}

// InRevision reports whether a rule is part of a revision as this run
// reaches the server: the rule names the revision (or none), and a rule of
// the run's transport holds only in a revision that defines that
// transport. This is the one place that decides it: a rule of a
// transport a revision does not define is no rule of that revision,
// whatever a server answers over it.
// A rule of another transport than the run's is left to AppliesOn (the
// report says "HTTP only" in every revision alike).
func (p *Protocol) InRevision(r *Rule, version string) bool {
	return r.AppliesTo(version) && p.revisionHas(r, version)
}

// revisionHas is false for a rule of the run's transport in a revision
// without that transport.
func (p *Protocol) revisionHas(r *Rule, version string) bool {
	if len(r.Transports) == 0 || !r.AppliesOn(p.Transport) || p.Transport == "" || p.Versions == nil {
		return true
	}
	if v := p.Versions.find(version); v == nil || v.Has(p.Transport) {
		return true
	}
	// A profile's own rules come from its document, which may well serve
	// an old revision over a newer transport than that revision defines;
	// only its base's rules are the revision's.
	return p.Base != "" && !p.Inherited(r)
}

// NotInRevision says why a rule the run's transport could judge is not
// judged in the protocol's revision: "" when it is, or when it is left
// out for another reason (its own versions list, another transport).
func (p *Protocol) NotInRevision(r *Rule) string {
	if r == nil || p.revisionHas(r, p.Version) {
		return ""
	}
	return fmt.Sprintf("not a rule of revision %s, which has no %s transport", p.Version, TransportName(p.Transport))
}

// WhyNotApplied says why a rule is no rule of this run, "" when it is
// (Applies): its transports: leave out the run's transport, its versions:
// the run's revision, or the revision lacks the transport it holds on.
// The runner skips a scenario's declared rule with it, so scenarios do
// not restate the spec's applicability.
func (p *Protocol) WhyNotApplied(r *Rule) string {
	switch {
	case r == nil || p.Applies(r):
		return ""
	case !r.AppliesOn(p.Transport):
		return r.OnlyOn() + "; this run is over " + TransportName(p.Transport)
	case !r.AppliesTo(p.Version):
		return fmt.Sprintf("not a rule of revision %s (the spec gives it to %s)", p.Version, strings.Join(r.Versions, ", "))
	}
	return cmp.Or(p.NotInRevision(r), "not a rule of revision "+p.Version)
}

// index maps rule IDs to rules, and each check to the rules it stands for
// in the protocol's revision and on its transport (a check the transport
// decides in every revision stands for the rule of the revision judged).
func (p *Protocol) index() {
	p.rules = make(map[string]*Rule, len(p.Rules))
	p.checks = map[string][]*Rule{}
	for _, r := range p.Rules {
		if p.rules[r.ID] == nil {
			p.rules[r.ID] = r
		}
		if !p.Applies(r) {
			continue
		}
		for _, ch := range r.Checks {
			p.checks[ch] = append(p.checks[ch], r)
		}
	}
}

// checkTransports refuses transport names the spec's own list does not
// hold (and, for that list, names wirecheck does not know).
func (p *Protocol) checkTransports(bad func(line int, format string, args ...any)) {
	for _, t := range p.Transports {
		if _, ok := transport.Lookup(t); !ok {
			bad(1, "unknown transport %q (want %s)", t, strings.Join(transport.Names(), ", "))
		}
	}
	inList := func(what string, line int, t string) {
		if !slices.Contains(p.Transports, t) {
			bad(line, "%s: transport %q is not in the spec's transports list (%s)", what, t, strings.Join(p.Transports, ", "))
		}
	}
	if p.Versions != nil && p.Base == "" {
		// A profile's revisions are its base's, named by the base's list.
		for _, v := range p.Versions.List {
			for _, t := range v.Transports {
				inList("version "+v.ID, 1, t)
			}
		}
	}
	for _, r := range p.Rules {
		if p.inherited[r] {
			// A base rule of a transport the profile lacks is skipped in
			// its runs with the reason, as any rule of another transport.
			continue
		}
		for _, t := range r.Transports {
			inList("rule "+r.ID, r.Line, t)
		}
	}
	for _, f := range p.Faults {
		if f.Transport != "" {
			inList(fmt.Sprintf("fault %q", f.Name), f.Line, f.Transport)
		}
	}
	for _, v := range p.Variants {
		if v.Transport != "" {
			inList(fmt.Sprintf("variant %q", v.Name), v.Line, v.Transport)
		}
	}
}

// FaultTransports lists the transports a fault-table row of f runs over:
// its own, or else each of the protocol's transports on which a rule it
// trips holds (a fault of the HTTP transports means nothing on stdio).
func (p *Protocol) FaultTransports(f *Fault) []string {
	if f.Transport != "" {
		return []string{f.Transport}
	}
	var out []string
	for _, tr := range p.Transports {
		for _, id := range f.Trips {
			if r := p.Rule(id); r != nil && r.AppliesOn(tr) {
				out = append(out, tr)
				break
			}
		}
	}
	return out
}

// VariantTransports lists the transports a variant-table row of v runs
// over: its own, or else every transport of the protocol.
func (p *Protocol) VariantTransports(v *Variant) []string {
	if v.Transport != "" {
		return []string{v.Transport}
	}
	return p.Transports
}
