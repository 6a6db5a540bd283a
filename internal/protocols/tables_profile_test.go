package protocols_test

import (
	"github.com/wirecheck/wirecheck/internal/protocols"
)

// What the tables ask of a profile (a spec with base:): its reference
// server is a product its document describes, so it speaks the revision
// the profile names and offers only what the document does. The base's
// rules are proven by the base's faults and variants; a profile's own
// are proven by its own.

// tableRevisions are the revisions the tables run a protocol under: every
// one of a versioned protocol, the one a profile names for a profile.
func tableRevisions(b *protocols.Bundle) []string {
	switch {
	case b.Protocol.Versions == nil:
		return []string{""}
	case b.Protocol.Base != "":
		return []string{b.Protocol.Versions.Default}
	}
	return b.Protocol.Versions.IDs()
}

// ownRule reports whether rule is the protocol's own, not its base's.
func ownRule(b *protocols.Bundle, rule string) bool {
	if b.Protocol.Base == "" {
		return true
	}
	base, err := protocols.Load(b.Protocol.Base)
	return err != nil || base.Protocol.Rule(rule) == nil
}

// mayStaySkipped reports whether a skip of rule is allowed in a profile's
// "100%" run: a base rule of what its server does not offer (the
// document's tools, not the MCP reference server's), or an own rule no
// fault trips, which no run can decide (an error code whose condition no
// client can provoke).
func mayStaySkipped(b *protocols.Bundle, rule string) bool {
	if b.Protocol.Base == "" {
		return false
	}
	if !ownRule(b, rule) {
		return true
	}
	for _, f := range b.Protocol.Faults {
		for _, t := range f.Trips {
			if t == rule {
				return false
			}
		}
	}
	return true
}

// tableParams are the --param settings of a protocol's runs in the
// tables: the checks a default run leaves out because they cost a real
// server something (sophon's rate limit spends the token's minute),
// which a reference server of the tables' own can afford.
var tableParams = map[string]map[string]string{
	"sophon": {"rate_limit": "check"},
}
