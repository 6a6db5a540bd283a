package spec

import (
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// Features are the known feature names a revision's features: may list
// (the revision table, internal/revtable, says what each means).
var Features = revtable.Features

// resolve builds the revision table of the versions list; file names the
// spec in its messages.
func (v *Versions) resolve(file string) Errors {
	if v.table != nil {
		return nil
	}
	revs := make([]revtable.Revision, len(v.List))
	for i, x := range v.List {
		revs[i] = revtable.Revision{ID: x.ID, Features: x.Features, Transports: x.Transports}
	}
	t, probs := revtable.Build(revs)
	v.table = t
	var errs Errors
	for _, pr := range probs {
		errs = append(errs, &Error{File: file, Line: pr.Line, Msg: pr.Msg})
	}
	return errs
}

// Has reports whether revision id has feature f (revtable.Table.Has: an
// unknown id as the newest known revision before it).
func (v *Versions) Has(id string, f revtable.Feature) bool {
	if v == nil {
		return false
	}
	return v.table.Has(id, f)
}

// With lists the revisions that have feature f, in the spec's order.
func (v *Versions) With(f revtable.Feature) []string {
	if v == nil {
		return nil
	}
	return v.table.With(f)
}

// Has reports whether the protocol's revision id has feature f (false for
// a protocol without versions).
func (p *Protocol) Has(id string, f revtable.Feature) bool { return p.Versions.Has(id, f) }
