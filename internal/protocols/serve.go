package protocols

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/wirecheck/wirecheck/internal/revtable"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/specs"
)

// Choice is what `wirecheck serve` asks of a protocol's reference server
// besides the protocol: where to serve and what to plant.
type Choice struct {
	// Transport is stdio ("" too), http or sse; Listen its host:port.
	Transport, Listen string
	// HTTP and SSE are short for Transport http or sse with Listen
	// (--http ADDR, --sse ADDR): one of them, and neither with those.
	HTTP, SSE        string
	Faults, Variants []string
}

// resolved is c with HTTP or SSE spelt out as Transport and Listen, and
// Transport stdio when none is named.
func (c Choice) resolved() (Choice, error) {
	for _, a := range []struct{ name, addr string }{{"http", c.HTTP}, {"sse", c.SSE}} {
		if a.addr == "" {
			continue
		}
		if c.Transport != "" || c.Listen != "" || (c.HTTP != "" && c.SSE != "") {
			return c, fmt.Errorf("--%s: give one of --http, --sse and --transport/--listen", a.name)
		}
		c.Transport, c.Listen, c.HTTP, c.SSE = a.name, a.addr, "", ""
	}
	if c.Transport == "" {
		c.Transport = "stdio"
	}
	return c, nil
}

// Check refuses a choice p's reference server cannot serve, in the order
// of the flags; a "list" among the faults (or else the variants) writes
// the table of that kind to w instead, and listed says so. Its errors
// name the flag at fault.
func (c Choice) Check(p *spec.Protocol, w io.Writer) (listed bool, err error) {
	if c, err = c.resolved(); err != nil {
		return false, err
	}
	if !slices.Contains(p.Transports, c.Transport) {
		return false, fmt.Errorf("--transport %q: the %s reference server serves %s", c.Transport, p.ID, strings.Join(p.Transports, ", "))
	}
	if c.Listen != "" && c.Transport == "stdio" {
		return false, fmt.Errorf("--listen applies to HTTP transports; %s is served on stdio", p.ID)
	}
	if c.Transport != "stdio" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			return false, fmt.Errorf("--%s %q: want an address to listen on, host:port (%v)", c.Transport, c.Listen, err)
		}
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

// WriteCatalogue writes the rules of protocol id (of every protocol for
// "") as a text table or as JSON, for `wirecheck rules`.
func WriteCatalogue(w io.Writer, format, id string) error {
	// The whole catalogue is every module's, the roles' among them.
	ids := AllIDs()
	if id != "" {
		ids = []string{id}
	}
	var ps []*spec.Protocol
	for _, id := range ids {
		b, err := Load(id)
		if err != nil {
			return err
		}
		ps = append(ps, b.Protocol)
	}
	return spec.WriteCatalogue(w, format, ps...)
}

// servable reports whether c passes Check against the transports, faults
// and variants that id's spec declares, read from those blocks of the file
// alone. The tests start the reference server thousands of times, and
// loading the whole spec (MCP's: 2,300 lines of YAML, parsed twice) was
// most of what each start cost. Anything else (a list, an unknown name, a
// profile's inherited transports) goes through the whole spec, for its
// table or its message.
func servable(id string, c Choice) bool {
	data, err := specs.FS.ReadFile(id + ".yaml")
	if err != nil {
		return false
	}
	type named struct {
		Name string `yaml:"name"`
	}
	var doc struct {
		Transports []string `yaml:"transports"`
		Faults     []named  `yaml:"faults"`
		Variants   []named  `yaml:"variants"`
	}
	if yaml.Unmarshal(revtable.Blocks(data, "transports", "faults", "variants"), &doc) != nil || len(doc.Transports) == 0 {
		return false
	}
	p := &spec.Protocol{ID: id, Transports: doc.Transports}
	for _, f := range doc.Faults {
		p.Faults = append(p.Faults, &spec.Fault{Name: f.Name})
	}
	for _, v := range doc.Variants {
		p.Variants = append(p.Variants, &spec.Variant{Name: v.Name})
	}
	listed, err := c.Check(p, io.Discard)
	return !listed && err == nil
}

// Serve runs the reference server of protocol id as c asks until o.In
// ends (over HTTP: until o.Stop closes, or else SIGINT or SIGTERM) and
// returns its exit code; a "list" of c writes its table to o.Out instead
// (exit 0). A choice it cannot serve is an error. The server's folder
// (o.Dir) is the current one unless o says.
func Serve(id string, c Choice, o ServeOptions) (int, error) {
	m, err := Lookup(id)
	if err != nil {
		return 0, err
	}
	if !servable(id, c) {
		p, err := LoadSpec(id)
		if err != nil {
			return 0, err
		}
		if listed, err := c.Check(p, o.Out); err != nil || listed {
			return 0, err
		}
	}
	c, _ = c.resolved()
	if c.Transport != "stdio" && o.Stop == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		o.Stop = ctx.Done()
	}
	switch c.Transport {
	case "http":
		o.HTTP = c.Listen
	case "sse":
		o.SSE = c.Listen
	}
	if o.Faults, o.Variants = c.Faults, c.Variants; o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	return m.Serve(o), nil
}
