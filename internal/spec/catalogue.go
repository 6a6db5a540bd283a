package spec

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// catalogueRow is one rule as `wirecheck rules` prints it; its JSON form
// is what scripts read.
type catalogueRow struct {
	Protocol string   `json:"protocol"`
	ID       string   `json:"id"`
	Level    string   `json:"level"`
	Title    string   `json:"title"`
	Source   string   `json:"source"`
	Quote    string   `json:"quote,omitempty"`
	Checks   []string `json:"checks,omitempty"`
	// Document is the title of the document Source names.
	Document string `json:"document,omitempty"`
}

// WriteCatalogue writes the rules of ps as a text table or as JSON.
func WriteCatalogue(w io.Writer, format string, ps ...*Protocol) error {
	var rows []catalogueRow
	for _, p := range ps {
		for _, r := range p.Rules {
			rows = append(rows, catalogueRow{p.ID, r.ID, string(r.Level), r.Title, p.Citation(r), r.Quote, r.Checks, p.DocTitle(r)})
		}
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "text":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "RULE\tLEVEL\tTITLE\tSOURCE")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Title, r.Source)
		}
		return tw.Flush()
	}
	return fmt.Errorf("--format %q: want text or json", format)
}

// KindNamed returns the kind called name, or an error that lists the
// kinds there are.
func (p *Protocol) KindNamed(name string) (*Kind, error) {
	if k := p.Kind(name); k != nil {
		return k, nil
	}
	var names []string
	for _, k := range p.Kinds {
		names = append(names, fmt.Sprintf("%q", k.Name))
	}
	return nil, fmt.Errorf("--kind %q: %s defines %v", name, p.ID, names)
}
