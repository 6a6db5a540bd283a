package protocols

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Choice is what `wirecheck serve` asks of a protocol's reference server
// besides the protocol: where to serve and what to plant.
type Choice struct {
	Transport, Listen string
	Faults, Variants  []string
}

// Check refuses a choice p's reference server cannot serve, in the order
// of the flags; a "list" among the faults (or else the variants) writes
// the table of that kind to w instead, and listed says so. Its errors
// name the flag at fault.
func (c Choice) Check(p *spec.Protocol, w io.Writer) (listed bool, err error) {
	if c.Transport != "stdio" {
		return false, fmt.Errorf("--transport %q: the %s reference server serves %s", c.Transport, p.ID, strings.Join(p.Transports, ", "))
	}
	if c.Listen != "" {
		return false, fmt.Errorf("--listen applies to HTTP transports; %s is served on stdio", p.ID)
	}
	for _, f := range c.Faults {
		if f == "list" {
			return true, table(w, "FAULT\tTRIPS\tWHAT IT DOES", p.Faults, func(f *spec.Fault) string {
				return f.Name + "\t" + strings.Join(f.Trips, ",") + "\t" + f.Does
			})
		}
		if p.Fault(f) == nil {
			return false, unknown("fault", f, p, p.Faults, func(f *spec.Fault) string { return f.Name })
		}
	}
	for _, v := range c.Variants {
		if v == "list" {
			return true, table(w, "VARIANT\tWHAT IT DOES\tWHY IT IS LEGAL", p.Variants, func(v *spec.Variant) string {
				return v.Name + "\t" + v.Does + "\t" + v.Why
			})
		}
		if p.Variant(v) == nil {
			return false, unknown("variant", v, p, p.Variants, func(v *spec.Variant) string { return v.Name })
		}
	}
	return false, nil
}

// table writes one row of each of xs under head, aligned.
func table[T any](w io.Writer, head string, xs []T, row func(T) string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, head)
	for _, x := range xs {
		fmt.Fprintln(tw, row(x))
	}
	return tw.Flush()
}

// unknown is the error of a fault or variant name p does not define.
func unknown[T any](what, name string, p *spec.Protocol, xs []T, nameOf func(T) string) error {
	var names []string
	for _, x := range xs {
		names = append(names, nameOf(x))
	}
	return fmt.Errorf("unknown %s %q for %s (known: %s; '--%s list' describes them)", what, name, p.ID, strings.Join(names, ", "), what)
}

// WriteTable writes the protocols, their transports, rule counts by level,
// scenario counts and sources, for `wirecheck protocols`.
func WriteTable(w io.Writer) error {
	var bs []*Bundle
	for _, id := range IDs() {
		b, err := Load(id)
		if err != nil {
			return err
		}
		bs = append(bs, b)
	}
	return table(w, "PROTOCOL\tTRANSPORTS\tRULES\tMUST\tSHOULD\tMAY\tSCENARIOS\tSOURCE", bs, func(b *Bundle) string {
		n := map[verdict.Level]int{}
		for _, r := range b.Protocol.Rules {
			n[r.Level]++
		}
		return fmt.Sprintf("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s", b.Protocol.ID, strings.Join(b.Protocol.Transports, ","),
			len(b.Protocol.Rules), n[verdict.Must], n[verdict.Should], n[verdict.May], len(b.Scenarios), b.Protocol.Source)
	})
}
