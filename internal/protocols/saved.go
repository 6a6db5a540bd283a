package protocols

import (
	"fmt"

	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// ProtocolOf is the protocol saved scenario files are replayed by: flag
// (--protocol) when given, else the one the files name. A file that names
// none, with no protocol known before it, is refused by name.
func ProtocolOf(saved []*scenario.Saved, flag string) (string, error) {
	for _, sv := range saved {
		if flag == "" && sv.Protocol == "" {
			return "", fmt.Errorf("%s: the file names no protocol; give --protocol", sv.File)
		} else if flag == "" {
			flag = sv.Protocol
		}
	}
	return flag, nil
}

// ParseSaved parses saved scenario files by b under the settings they
// carry, those of flags winning (scenario.Settings): the protocol
// resolved for their revision, the settings, the scenarios. Its errors
// name the file at fault.
func (b *Bundle) ParseSaved(saved []*scenario.Saved, flags map[string]string) (*spec.Protocol, map[string]string, []*scenario.Scenario, error) {
	params, from, err := scenario.Settings(saved, flags)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := b.ForParams(params, from[b.RevisionParam()])
	if err != nil {
		return nil, nil, nil, err
	}
	scs := make([]*scenario.Scenario, len(saved))
	for i, sv := range saved {
		if scs[i], err = scenario.Parse(sv.File, sv.Data, p); err != nil {
			return nil, nil, nil, err
		}
	}
	return p, params, scs, nil
}
