package report

import (
	"slices"
	"strings"
)

// A report a vendor hands over is a certificate: besides the verdicts, it
// says what was certified (the server's own name and version, how it was
// reached, the revision), by what (wirecheck's version, the documents and
// their hashes), when, and at which level.

// Server is a server as it names itself: a handshake's server info, a ready line's
// fields (spec startup.identify).
type Server struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// String is "name version", "version", or "" when the server said neither.
func (s *Server) String() string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(s.Name + " " + s.Version)
}

// Document is a document a report's rules cite, as its spec declares it.
type Document struct {
	// Name is how the rules' citations (Rule.Source) name it.
	Name  string `json:"name"`
	Title string `json:"title"`
	File  string `json:"file,omitempty"`
	URL   string `json:"url,omitempty"`
	// SHA256 pins the text the rules were written against.
	SHA256 string `json:"sha256,omitempty"`
}

// mergeCertificate adds what r certifies to out, a merge of reports (the
// shards of one run): the first server named, the revision where all
// parts agree on one, every document once.
func mergeCertificate(out, r *Report) {
	if out.Server == nil {
		out.Server = r.Server
	}
	if out.Client == nil {
		out.Client = r.Client
	}
	if out.Role == "" {
		out.Role = r.Role
	}
	if out.Revision == "" && len(out.Documents) == 0 {
		out.Revision = r.Revision
	} else if out.Revision != r.Revision {
		out.Revision = ""
	}
	for _, d := range r.Documents {
		if !slices.ContainsFunc(out.Documents, func(x Document) bool { return x.Name == d.Name }) {
			out.Documents = append(out.Documents, d)
		}
	}
}

// Certified is what r certifies, as a label and its identity: the server,
// or for a run with role client the client.
func (r *Report) Certified() (label string, who *Server) {
	if r.Role == "client" {
		return "Client", r.Client
	}
	return "Server", r.Server
}
