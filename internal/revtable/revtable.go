// Package revtable is the revision table: which features each revision
// of a protocol has, as its spec's versions: list declares them
// (features:, the whole set or +added/-removed against the previous
// revision's). Code asks it whether a revision has a feature and never
// compares revision ids itself: this file is the one place that orders
// them (internal/spec/revisioncompare_test.go fails on any other). It
// imports no wirecheck package, so the transports may ask it too.
package revtable

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Feature names something a protocol revision has or lacks.
type Feature string

// The features a revision may declare. Each is named for what it means on
// the wire, so code asks "does this revision have batches?" rather than
// "is it 2025-03-26?".
const (
	// Handshake: a session opens with initialize and
	// notifications/initialized, which negotiate the revision.
	Handshake Feature = "handshake"
	// Discover: no handshake; the client asks server/discover and every
	// request stands alone.
	Discover Feature = "discover"
	// RequiredMeta: every request names the revision, the client's
	// capabilities and clientInfo in its _meta.
	RequiredMeta Feature = "required-meta"
	// StreamableHTTP: the Streamable HTTP transport (one endpoint, POST
	// and GET); the revision's transports: must agree.
	StreamableHTTP Feature = "streamable-http"
	// VersionHeader: HTTP clients send MCP-Protocol-Version on every
	// request after the handshake.
	VersionHeader Feature = "version-header"
	// Batches: JSON-RPC batches (arrays of messages) are allowed.
	Batches Feature = "batches"
	// Completions: the completions capability and completion/complete.
	Completions Feature = "completions"
	// CompletionContext: completion/complete carries the arguments
	// already known in context.arguments.
	CompletionContext Feature = "completion-context"
	// ProgressMessage: notifications/progress may carry a message.
	ProgressMessage Feature = "progress-message"
	// StructuredContent: tools declare an outputSchema and answer with
	// structuredContent.
	StructuredContent Feature = "structured-content"
	// Elicitation: the client's elicitation capability and
	// elicitation/create.
	Elicitation Feature = "elicitation"
	// ResumableStreams: an SSE stream broken before its response is
	// resumed with GET and Last-Event-ID.
	ResumableStreams Feature = "resumable-streams"
	// PrimingEvents: a server's SSE stream opens with an event id and
	// empty data (the priming event).
	PrimingEvents Feature = "priming-events"
	// RetryBeforeClose: a server closing an SSE stream before the
	// response, after an event id, sends a retry field first (polling).
	RetryBeforeClose Feature = "retry-before-close"
	// ResourceNotFoundInvalidParams: resources/read of an unknown URI is
	// answered -32602 (Invalid params), no longer -32002.
	ResourceNotFoundInvalidParams Feature = "resource-not-found-invalid-params"
	// Tasks: task-augmented requests and tasks/get, tasks/result,
	// tasks/list, tasks/cancel in the core (basic/utilities/tasks,
	// 2025-11-25; an extension from 2026-07-28 on).
	Tasks Feature = "tasks"
)

// Features are the known feature names, what a spec's features: may list.
var Features = []Feature{
	Handshake, Discover, RequiredMeta, StreamableHTTP, VersionHeader,
	Batches, Completions, CompletionContext, ProgressMessage,
	StructuredContent, Elicitation, ResumableStreams, PrimingEvents,
	RetryBeforeClose, ResourceNotFoundInvalidParams, Tasks,
}

// FeatureList is a revision's features: as written: either the whole set
// (plain names) or changes to the previous revision's (every name +added
// or -removed). Lines are kept for load-time messages.
type FeatureList struct {
	Names []string
	Lines []int
}

// UnmarshalYAML keeps each name's line.
func (f *FeatureList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("line %d: features: want a list of feature names", n.Line)
	}
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: features: want a feature name", item.Line)
		}
		f.Names = append(f.Names, item.Value)
		f.Lines = append(f.Lines, item.Line)
	}
	return nil
}

// Revision is one revision as the table reads it from a spec.
type Revision struct {
	ID         string      `yaml:"id"`
	Features   FeatureList `yaml:"features"`
	Transports []string    `yaml:"transports"`
}

// Problem is a mistake in a features: list, at its line.
type Problem struct {
	Line int
	Msg  string
}

// Table answers what each revision has, in the spec's order (oldest
// first).
type Table struct {
	ids []string
	has []map[Feature]bool
}

// Build resolves every revision's feature set, in order.
func Build(revs []Revision) (*Table, []Problem) {
	t := &Table{}
	var probs []Problem
	bad := func(line int, format string, args ...any) {
		probs = append(probs, Problem{line, fmt.Sprintf(format, args...)})
	}
	var prev map[Feature]bool
	for i, x := range revs {
		first := 0
		if len(x.Features.Lines) > 0 {
			first = x.Features.Lines[0]
		}
		relative := 0
		for _, n := range x.Features.Names {
			if strings.HasPrefix(n, "+") || strings.HasPrefix(n, "-") {
				relative++
			}
		}
		if relative > 0 && relative < len(x.Features.Names) {
			bad(first, "version %s: features: either every name is +added/-removed (changes to the previous revision) or none is (the whole set)", x.ID)
		}
		if relative > 0 && i == 0 {
			bad(first, "version %s: features: the first revision lists its whole set, it has no previous one to change", x.ID)
		}
		set := map[Feature]bool{}
		if relative > 0 || len(x.Features.Names) == 0 {
			for f := range prev {
				set[f] = true
			}
		}
		for j, n := range x.Features.Names {
			name := Feature(strings.TrimLeft(n, "+-"))
			line := x.Features.Lines[j]
			if !slices.Contains(Features, name) {
				bad(line, "version %s: unknown feature %q (known: %s)", x.ID, name, names())
				continue
			}
			switch {
			case strings.HasPrefix(n, "-") && !set[name]:
				bad(line, "version %s: removes feature %q, which the previous revision does not have", x.ID, name)
			case strings.HasPrefix(n, "+") && set[name]:
				bad(line, "version %s: adds feature %q, which the previous revision already has", x.ID, name)
			}
			set[name] = !strings.HasPrefix(n, "-")
		}
		for f, on := range set {
			if !on {
				delete(set, f)
			}
		}
		// transports: and streamable-http say the same thing twice; a
		// revision naming its transports must agree with its features.
		if len(x.Transports) > 0 && slices.Contains(x.Transports, "http") != set[StreamableHTTP] {
			bad(first, "version %s: transports: %v and feature %s disagree", x.ID, x.Transports, StreamableHTTP)
		}
		t.ids = append(t.ids, x.ID)
		t.has = append(t.has, set)
		prev = set
	}
	return t, probs
}

func names() string {
	out := make([]string, len(Features))
	for i, f := range Features {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}

// Has reports whether revision id has feature f. A revision the table
// does not list (a server may name one wirecheck does not know) has the
// features of the newest listed revision before it, as revision ids are
// dates; one before them all, or none, has none.
func (t *Table) Has(id string, f Feature) bool {
	if t == nil || id == "" {
		return false
	}
	at := -1
	for i, x := range t.ids {
		if x == id {
			return t.has[i][f]
		}
		if x < id && (at < 0 || x > t.ids[at]) {
			at = i
		}
	}
	return at >= 0 && t.has[at][f]
}

// With lists the revisions that have feature f, oldest first.
func (t *Table) With(f Feature) []string {
	if t == nil {
		return nil
	}
	var out []string
	for i, id := range t.ids {
		if t.has[i][f] {
			out = append(out, id)
		}
	}
	return out
}

// IDs lists the revisions, oldest first.
func (t *Table) IDs() []string {
	if t == nil {
		return nil
	}
	return slices.Clone(t.ids)
}

// Read builds the table of a spec file's versions: list alone, the rest
// of the file unread: for code that serves or carries a protocol without
// loading its whole spec.
func Read(data []byte) (*Table, []Problem, error) {
	var doc struct {
		Versions struct {
			List []Revision `yaml:"list"`
		} `yaml:"versions"`
	}
	// The versions: block alone: unmarshalling reads every token of the
	// file (MCP's is 2,300 lines), and every `wirecheck serve mcp` reads
	// the table at its first request. A block that does not parse alone
	// (an alias of something outside it) is read from the whole file.
	if err := yaml.Unmarshal(Blocks(data, "versions"), &doc); err != nil || len(doc.Versions.List) == 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, nil, err
		}
	}
	if len(doc.Versions.List) == 0 {
		return nil, nil, fmt.Errorf("no versions: list")
	}
	t, probs := Build(doc.Versions.List)
	return t, probs, nil
}

// Blocks is data with every line outside its top-level blocks of the
// given keys left empty, so what is kept keeps its line numbers: a YAML
// reader of a few keys of a long spec then scans those alone. Data itself
// when it has none of them.
func Blocks(data []byte, keys ...string) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	out := make([]byte, 0, len(data))
	in, found := false, false
	for _, l := range lines {
		// A line that starts in the first column (not a comment or a
		// blank) starts a top-level key, ending the block before it.
		if len(l) > 0 && !strings.ContainsRune(" \t#\r\n", rune(l[0])) {
			in = false
			for _, k := range keys {
				if bytes.HasPrefix(l, []byte(k+":")) {
					in, found = true, true
				}
			}
		}
		if in {
			out = append(out, l...)
		} else if len(l) > 0 && l[len(l)-1] == '\n' {
			out = append(out, '\n')
		}
	}
	if !found {
		return data
	}
	return out
}
