package protocols

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/spec"
)

// UnknownRuleError is a rule ID no protocol asked defines, with the IDs
// it may have meant.
type UnknownRuleError struct {
	ID, Protocol string
	Near         []string
}

func (e *UnknownRuleError) Error() string {
	msg := fmt.Sprintf("rule %q: no protocol defines it", e.ID)
	if e.Protocol != "" {
		msg = fmt.Sprintf("rule %q: protocol %s defines no such rule", e.ID, e.Protocol)
	}
	if len(e.Near) > 0 {
		msg += "; did you mean " + strings.Join(e.Near, ", ") + "?"
	}
	return msg + " (wirecheck rules lists them)"
}

// WriteRule prints one rule whole, as `wirecheck rules --protocol P RULE`
// shows it: its ID, level and title, the sentence it tests, the document
// and section it is quoted from (title, name, pinned hash), the revisions
// and transports it holds in, how it is checked, and the reference
// server's faults that trip it. id is looked up in protocol (every
// protocol when "").
func WriteRule(w io.Writer, protocol, id string) error {
	// Every catalogue, a role's too: a client's rule ID given alone is
	// found where it is.
	ids := AllIDs()
	if protocol != "" {
		ids = []string{protocol}
	}
	var all []string
	for _, pid := range ids {
		b, err := Load(pid)
		if err != nil {
			return err
		}
		r := b.Protocol.Rule(id)
		if r == nil {
			r = b.Protocol.Rule(strings.ToUpper(strings.TrimSpace(id)))
		}
		if r != nil {
			writeRule(w, b, r)
			return nil
		}
		for _, r := range b.Protocol.Rules {
			all = append(all, r.ID)
		}
	}
	return &UnknownRuleError{ID: id, Protocol: protocol, Near: near(id, all)}
}

func writeRule(w io.Writer, b *Bundle, r *spec.Rule) {
	p := b.Protocol
	fmt.Fprintf(w, "%s  %s  (%s)\n  %s\n", r.ID, r.Level, p.ID, r.Title)
	if q := strings.Join(strings.Fields(r.Quote), " "); q != "" {
		fmt.Fprintf(w, "\nQuote:       “%s”\n", q)
	} else {
		fmt.Fprintf(w, "\nQuote:       none (the document is silent; the rule asks what every reasonable reading agrees on)\n")
	}
	name, section := p.DocOf(r), p.SectionOf(r)
	title := name
	if d := p.Document(name); d != nil {
		title = d.Title
	}
	fmt.Fprintf(w, "Document:    %s", title)
	if section != "" {
		fmt.Fprintf(w, ", § %s", section)
	}
	fmt.Fprintln(w)
	if d := p.Document(name); d != nil {
		ref := []string{"cited as " + d.Name}
		for _, s := range []string{d.File, d.URL} {
			if s != "" {
				ref = append(ref, s)
			}
		}
		if d.SHA256 != "" {
			ref = append(ref, "sha256 "+d.SHA256)
		}
		fmt.Fprintf(w, "             %s\n", strings.Join(ref, ", "))
	}
	if p.Versions != nil {
		revs := r.Versions
		if len(revs) == 0 {
			revs = p.Versions.IDs()
		}
		fmt.Fprintf(w, "Revisions:   %s\n", strings.Join(revs, ", "))
	}
	trs := r.Transports
	if len(trs) == 0 {
		trs = p.Transports
	}
	names := make([]string, len(trs))
	for i, t := range trs {
		names[i] = spec.TransportName(t)
	}
	fmt.Fprintf(w, "Transports:  %s\n", strings.Join(names, ", "))
	how := checkedBy(b, r)
	fmt.Fprintf(w, "Checked by:  %s\n", how[0])
	for _, h := range how[1:] {
		fmt.Fprintf(w, "             %s\n", h)
	}
	var faults []string
	for _, f := range p.Faults {
		if slices.Contains(f.Trips, r.ID) {
			faults = append(faults, fmt.Sprintf("%s (%s)", f.Name, f.Does))
		}
	}
	if len(faults) == 0 {
		ref := "server"
		if _, role := RoleOf(p.ID); role != RoleServer {
			ref = role
		}
		fmt.Fprintf(w, "Faults:      none of the reference %s's trips it\n", ref)
	} else {
		fmt.Fprintf(w, "Faults:      %s\n", faults[0])
		for _, f := range faults[1:] {
			fmt.Fprintf(w, "             %s\n", f)
		}
		if proto, role := RoleOf(p.ID); role != RoleServer {
			fmt.Fprintf(w, "             (wirecheck serve %s --role %s --fault NAME -- SERVER-CMD serves one)\n", proto, role)
		} else {
			fmt.Fprintf(w, "             (wirecheck serve %s --fault NAME serves one)\n", p.ID)
		}
	}
}

// checkedBy says how a rule is decided: the built-in checks that stand
// for it, the kinds whose schema decides it, a schema on every frame of
// some roles, and the scenarios that declare it (a fixture file, or Go).
func checkedBy(b *Bundle, r *spec.Rule) []string {
	p := b.Protocol
	var how []string
	for _, c := range r.Checks {
		how = append(how, "built-in check "+c+" (internal/verdict/checks.go), on every frame or exchange it concerns")
	}
	for _, k := range p.Kinds {
		if k.Rule == r.ID {
			how = append(how, fmt.Sprintf("the schema of kind %q (%s), on every such frame", k.Name, k.Schema))
		}
	}
	if r.Frames != nil {
		how = append(how, fmt.Sprintf("schema %s on every frame of %v", r.Frames.Schema, r.Frames.Roles))
	}
	for _, s := range b.Scenarios {
		if !slices.Contains(s.Rules, r.ID) {
			continue
		}
		where := s.File
		if where == "" {
			where = "written in Go, internal/suite/"
		}
		how = append(how, fmt.Sprintf("scenario %s (%s)", s.Name, where))
	}
	if len(how) == 0 {
		how = append(how, "scenarios that observe it by its ID (grep the ID in internal/suite/ and fixtures/)")
	}
	return how
}

// near lists up to three IDs of all close to id: those that contain it,
// or are a few edits from it.
func near(id string, all []string) []string {
	q := strings.ToUpper(strings.TrimSpace(id))
	type cand struct {
		id string
		d  int
	}
	var cs []cand
	for _, a := range all {
		d := spec.EditDistance(q, a)
		if strings.Contains(a, q) && q != "" {
			d = 0
		}
		if d <= max(2, len(q)/3) {
			cs = append(cs, cand{a, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs {
		if !slices.Contains(out, c.id) {
			out = append(out, c.id)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}
