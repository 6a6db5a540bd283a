package spec

import (
	"github.com/wirecheck/wirecheck/internal/transport"
	"slices"
	"strings"
)

// A profile is a protocol that extends another (`base:`): a concrete
// server's document promises more than the protocol it speaks (sonde-hub
// and sophon are servers of a protocol they extend). The profile takes its base's kinds, rules,
// revisions, correlation, probe, fuzz model and transports, and adds its
// own rules; its faults and variants are its own, since they name what
// its reference server does. It never copies a base rule.

// checkProfile checks the keys only a profile (or a protocol with HTTP
// transports) sets: the default revision and the endpoint paths.
func (p *Protocol) checkProfile(bad func(line int, format string, args ...any)) {
	if p.Revision != "" {
		switch {
		case p.Versions == nil:
			bad(1, "revision %q: protocol %s has no revisions", p.Revision, p.ID)
		case p.Versions.find(p.Revision) == nil:
			bad(1, "revision %q is not one of %s", p.Revision, strings.Join(p.Versions.IDs(), ", "))
		case p.Revision != p.Versions.Default:
			// A copy: the base's Versions is shared with the base.
			v := *p.Versions
			v.Default = p.Revision
			p.Versions = &v
		}
	}
	for tr, path := range p.Endpoints {
		if !transport.OverURL(tr) || !slices.Contains(p.Transports, tr) {
			bad(1, "endpoints: %q is not an HTTP transport of protocol %s (transports: %s)", tr, p.ID, strings.Join(p.Transports, ", "))
		}
		if !strings.HasPrefix(path, "/") {
			bad(1, "endpoints: %s path %q must start with /", tr, path)
		}
	}
}

// Endpoint is the URL path a launched server serves transport tr on.
func (p *Protocol) Endpoint(tr string) string {
	if e := p.Endpoints[tr]; e != "" {
		return e
	}
	k, _ := transport.Lookup(tr)
	return k.Path
}

// Inherited reports whether r is a rule a profile takes from its base:
// its faults and variants are the profile's own, so the base's MUST rules
// need no fault of the profile.
func (p *Protocol) Inherited(r *Rule) bool {
	src := p
	if p.template != nil {
		// A revision's protocol holds copies of the template's rules.
		src = p.template
	}
	for x := range src.inherited {
		if x.ID == r.ID {
			return true
		}
	}
	return false
}
