package spec

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file is the revision table: which features each revision of a
// protocol has, as its spec's versions: list declares them. Code asks it
// (Protocol.Has, Versions.Has) and never compares revision ids itself; a
// test (revisions_test.go) fails on any such comparison outside this file.

// Feature names something a protocol revision has or lacks.
type Feature string

// The features a revision may declare. Each is named for what it means on
// the wire, so code asks "does this revision have batches?" rather than
// "is it 2025-03-26?".
const (
	// FeatureHandshake: a session opens with initialize and
	// notifications/initialized, which negotiate the revision.
	FeatureHandshake Feature = "handshake"
	// FeatureDiscover: no handshake; the client asks server/discover and
	// every request stands alone.
	FeatureDiscover Feature = "discover"
	// FeatureRequiredMeta: every request names the revision, the client's
	// capabilities and clientInfo in its _meta.
	FeatureRequiredMeta Feature = "required-meta"
	// FeatureStreamableHTTP: the Streamable HTTP transport (one endpoint,
	// POST and GET); the revision's transports: must agree.
	FeatureStreamableHTTP Feature = "streamable-http"
	// FeatureVersionHeader: HTTP clients send MCP-Protocol-Version on
	// every request after the handshake.
	FeatureVersionHeader Feature = "version-header"
	// FeatureBatches: JSON-RPC batches (arrays of messages) are allowed.
	FeatureBatches Feature = "batches"
	// FeatureCompletions: the completions capability and
	// completion/complete.
	FeatureCompletions Feature = "completions"
	// FeatureCompletionContext: completion/complete carries the arguments
	// already known in context.arguments.
	FeatureCompletionContext Feature = "completion-context"
	// FeatureProgressMessage: notifications/progress may carry a message.
	FeatureProgressMessage Feature = "progress-message"
	// FeatureStructuredContent: tools declare an outputSchema and answer
	// with structuredContent.
	FeatureStructuredContent Feature = "structured-content"
	// FeatureElicitation: the client's elicitation capability and
	// elicitation/create.
	FeatureElicitation Feature = "elicitation"
	// FeatureResumableStreams: an SSE stream broken before its response
	// is resumed with GET and Last-Event-ID.
	FeatureResumableStreams Feature = "resumable-streams"
	// FeaturePrimingEvents: a server's SSE stream opens with an event id
	// and empty data (the priming event).
	FeaturePrimingEvents Feature = "priming-events"
	// FeatureRetryBeforeClose: a server closing an SSE stream before the
	// response, after an event id, sends a retry field first (polling).
	FeatureRetryBeforeClose Feature = "retry-before-close"
	// FeatureResourceNotFoundInvalidParams: resources/read of an unknown
	// URI is answered -32602 (Invalid params), no longer -32002.
	FeatureResourceNotFoundInvalidParams Feature = "resource-not-found-invalid-params"
)

// Features are the known feature names, what a spec's features: may list.
var Features = []Feature{
	FeatureHandshake, FeatureDiscover, FeatureRequiredMeta, FeatureStreamableHTTP, FeatureVersionHeader,
	FeatureBatches, FeatureCompletions, FeatureCompletionContext, FeatureProgressMessage,
	FeatureStructuredContent, FeatureElicitation, FeatureResumableStreams, FeaturePrimingEvents,
	FeatureRetryBeforeClose, FeatureResourceNotFoundInvalidParams,
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

// resolve computes every revision's feature set from the list, in order;
// file names the spec in its messages.
func (v *Versions) resolve(file string) Errors {
	var errs Errors
	var prev map[Feature]bool
	for i, x := range v.List {
		if x.features != nil {
			prev = x.features
			continue
		}
		relative := 0
		for _, n := range x.Features.Names {
			if strings.HasPrefix(n, "+") || strings.HasPrefix(n, "-") {
				relative++
			}
		}
		if relative > 0 && relative < len(x.Features.Names) {
			errs = append(errs, &Error{File: file, Line: x.Features.Lines[0], Msg: fmt.Sprintf("version %s: features: either every name is +added/-removed (changes to the previous revision) or none is (the whole set)", x.ID)})
		}
		if relative > 0 && i == 0 {
			errs = append(errs, &Error{File: file, Line: x.Features.Lines[0], Msg: fmt.Sprintf("version %s: features: the first revision lists its whole set, it has no previous one to change", x.ID)})
		}
		set := map[Feature]bool{}
		if relative > 0 || len(x.Features.Names) == 0 {
			for f := range prev {
				set[f] = true
			}
		}
		for j, n := range x.Features.Names {
			name := Feature(strings.TrimLeft(n, "+-"))
			if !slices.Contains(Features, name) {
				errs = append(errs, &Error{File: file, Line: x.Features.Lines[j], Msg: fmt.Sprintf("version %s: unknown feature %q (known: %s)", x.ID, name, featureNames())})
				continue
			}
			switch {
			case strings.HasPrefix(n, "-") && !set[name]:
				errs = append(errs, &Error{File: file, Line: x.Features.Lines[j], Msg: fmt.Sprintf("version %s: removes feature %q, which the previous revision does not have", x.ID, name)})
			case strings.HasPrefix(n, "+") && set[name]:
				errs = append(errs, &Error{File: file, Line: x.Features.Lines[j], Msg: fmt.Sprintf("version %s: adds feature %q, which the previous revision already has", x.ID, name)})
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
		if len(x.Transports) > 0 && x.Has("http") != set[FeatureStreamableHTTP] {
			line := 0
			if len(x.Features.Lines) > 0 {
				line = x.Features.Lines[0]
			}
			errs = append(errs, &Error{File: file, Line: line, Msg: fmt.Sprintf("version %s: transports: %v and feature %s disagree", x.ID, x.Transports, FeatureStreamableHTTP)})
		}
		x.features = set
		prev = set
	}
	return errs
}

func featureNames() string {
	out := make([]string, len(Features))
	for i, f := range Features {
		out[i] = string(f)
	}
	return strings.Join(out, ", ")
}

// Has reports whether revision id has feature f. A revision the spec does
// not list (a server may name one wirecheck does not know) has the
// features of the newest listed revision before it, as revision ids are
// dates; one before them all has none.
func (v *Versions) Has(id string, f Feature) bool {
	if v == nil || id == "" {
		return false
	}
	var at *Version
	for _, x := range v.List {
		if x.ID == id {
			return x.features[f]
		}
		if x.ID < id && (at == nil || x.ID > at.ID) {
			at = x
		}
	}
	return at != nil && at.features[f]
}

// With lists the revisions that have feature f, in the spec's order.
func (v *Versions) With(f Feature) []string {
	var out []string
	for _, x := range v.List {
		if x.features[f] {
			out = append(out, x.ID)
		}
	}
	return out
}

// Has reports whether the protocol's revision id has feature f (false for
// a protocol without versions).
func (p *Protocol) Has(id string, f Feature) bool { return p.Versions.Has(id, f) }

// LoadVersions reads only the versions: of a spec file, its features
// resolved: the revision table for code that judges or serves one
// protocol without loading its whole spec (the reference server, the
// HTTP transport).
func LoadVersions(fsys fs.FS, file string) (*Versions, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Versions *Versions `yaml:"versions"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: "specs/" + file, Msg: err.Error()}
	}
	if doc.Versions == nil {
		return nil, &Error{File: "specs/" + file, Line: 1, Msg: "no versions:"}
	}
	if errs := doc.Versions.resolve("specs/" + file); len(errs) > 0 {
		return nil, errs
	}
	return doc.Versions, nil
}
