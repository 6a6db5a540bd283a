package protocols

import (
	"fmt"
	"strings"

	"github.com/wirecheck/wirecheck/internal/spec"
)

// Settings are a run's protocol settings as the flags gave them: the
// revision (--revision, --mcp-version its alias, or --param with the
// protocol's RevisionParam) and the other --param KEY=VALUE settings.
type Settings struct {
	// Protocol is the protocol resolved for Revision (its default when
	// none).
	Protocol *spec.Protocol
	// Revision is the one asked, however named; Rest the --param
	// settings other than it, as given.
	Revision string
	Rest     []string
	// Params are all the settings, the revision under RevisionParam; a
	// key given more than once holds its values one per line.
	Params map[string]string
	// All, for the revision "all" (AllRevisions), are the protocol's
	// revisions in its order; Protocol is then resolved for its default,
	// and Params name no revision.
	All []string
}

// AllRevisions asks for a run in every revision of the protocol, side by
// side (run --revision all).
const AllRevisions = "all"

// Settings resolves the revision and the --param settings of a command.
// only names a command that takes no setting but the revision ("" for
// one that takes any). Its errors name the flag at fault.
func (b *Bundle) Settings(revision string, params []string, only string) (*Settings, error) {
	key, flag := b.RevisionParam(), revision
	s := &Settings{Revision: revision, Params: map[string]string{}}
	for _, kv := range params {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || k == "":
			return nil, fmt.Errorf("--param %q: want KEY=VALUE", kv)
		case k == key && flag == "":
			s.Revision = v
		case k == key:
		case only != "" && key == "":
			return nil, fmt.Errorf("--param %s: protocol %s has no revisions to choose from", k, b.Protocol.ID)
		case only != "":
			return nil, fmt.Errorf("--param %s: %s takes only --param %s=V or --revision V (the revision to judge by)", k, only, key)
		default:
			// A key given again adds a value, one per line, for the
			// settings that take several (mcp's skip-tool).
			if prev, ok := s.Params[k]; ok {
				v = prev + "\n" + v
			}
			s.Rest, s.Params[k] = append(s.Rest, kv), v
		}
	}
	if s.Revision != "" && key == "" {
		return nil, fmt.Errorf("--revision %s: protocol %s has no revisions to choose from", s.Revision, b.Protocol.ID)
	} else if s.Revision == AllRevisions && only != "" {
		return nil, fmt.Errorf("--revision all: %s judges by one revision; name it (one of %s)", only, strings.Join(b.Protocol.Versions.IDs(), ", "))
	} else if s.Revision == AllRevisions {
		s.All = b.Protocol.Versions.IDs()
	} else if s.Revision != "" {
		s.Params[key] = s.Revision
	}
	if b.checkParams != nil {
		if err := b.checkParams(s.Params); err != nil {
			return nil, err
		}
	}
	var err error
	s.Protocol, err = b.ForParams(s.Params, "")
	return s, err
}

// ForParams is the protocol resolved for the revision params name (its
// default when none); from is the file a revision came from, if one did,
// and its errors name it.
func (b *Bundle) ForParams(params map[string]string, from string) (*spec.Protocol, error) {
	q, err := b.Protocol.ForVersion(params[b.RevisionParam()])
	if err != nil && from != "" {
		return nil, fmt.Errorf("%s: %w", from, err)
	}
	return q, err
}

// Pick is Load of the protocol a command's --protocol names, which the
// command requires: none named is an error listing those there are.
func Pick(id string) (*Bundle, error) {
	if id == "" {
		return nil, fmt.Errorf("--protocol is required (one of: %s)", strings.Join(IDs(), ", "))
	}
	return Load(id)
}
