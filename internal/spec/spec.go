// Package spec loads a protocol description (specs/<protocol>.yaml): its
// transports, message kinds and their schemas, how requests and responses
// correlate, and the rule catalogue. Every problem in a spec is reported with
// the file, the line and what is wrong.
package spec

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wirecheck/wirecheck/internal/transport"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// Protocol is a loaded spec file. Its schemas are compiled by package schema.
type Protocol struct {
	ID     string `yaml:"id"`
	Title  string `yaml:"title"`
	Source string `yaml:"source"`
	// Documents declares the documents the rules cite (Source and every
	// rule's Doc): a human title, and what pins the text (its sha256), so a
	// report names "the sonde-serve protocol document" rather than a file
	// and a certificate says which text it certifies against.
	Documents []*Document `yaml:"documents"`
	// Base names the protocol a profile extends (see profile.go).
	Base string `yaml:"base"`
	// Schemas, set, is the folder of schemas/ the spec's references
	// resolve in when it is another protocol's (a role of that protocol:
	// the same messages, judged from the other side); unset, its ID.
	Schemas    string   `yaml:"schemas"`
	Transports []string `yaml:"transports"`
	// Revision is a profile's default revision, one of its base's: the
	// revision its document describes (sophon speaks 2024-11-05).
	Revision string `yaml:"revision"`
	// Endpoints are the URL paths a launched server serves each HTTP
	// transport on (the transport's own, transport.Kind.Path, when unset).
	Endpoints map[string]string `yaml:"endpoints"`
	// Startup names the kind the first frame must be, if the protocol has a
	// ready line (sonde-serve does; most protocols do not).
	Startup *Startup `yaml:"startup"`
	// Probe is a known-good request (without its id) used to ask whether the
	// server is still alive and answering after bad input.
	Probe map[string]any `yaml:"probe"`
	// Correlation says where ids and methods live in frames.
	Correlation Correlation `yaml:"correlation"`
	Kinds       []*Kind     `yaml:"kinds"`
	Rules       []*Rule     `yaml:"rules"`
	// Fuzz tells the fuzzer how to build requests for this protocol.
	Fuzz *Fuzz `yaml:"fuzz"`
	// Faults lists the reference server's faults and the rules each trips,
	// so the fault table test and `serve --fault list` share one source.
	Faults []*Fault `yaml:"faults"`
	// Variants lists legal choices the reference server can be told to
	// make (`serve --variant NAME`): each must pass the whole suite at
	// --level should, which proves the rules accept every reasonable
	// reading, as Faults prove they can fail.
	Variants []*Variant `yaml:"variants"`
	// Unimplemented says how a server answers a method it does not
	// implement: alternatives, each a list of conditions that must all hold
	// on the response. Scenario steps marked optional report their rule as
	// skipped, not failed, when the answer matches one of them, so a server
	// that leaves out an optional method is not blamed for it.
	Unimplemented [][]Cond `yaml:"unimplemented"`
	// Versions lists the protocol's revisions when its messages differ by
	// revision: schema references in kinds and frame rules may use
	// {version} and the revision's vars, and a run picks one revision
	// (see ForVersion). Nil for a protocol with one revision.
	Versions *Versions `yaml:"versions"`
	// Version is the revision this Protocol was resolved for ("" when the
	// protocol has no Versions).
	Version string `yaml:"-"`
	// Transport is the transport this Protocol was resolved for (see
	// ForTransport): a loaded spec is resolved for its first transport.
	Transport string `yaml:"-"`

	// File is the spec's file name, for error messages.
	File string `yaml:"-"`

	// template is the unresolved protocol a versioned one came from.
	template *Protocol
	// schemaDirs are the folders of schemas/ its schema references are
	// looked up in: its own, then its base's (a profile).
	schemaDirs []string
	// inherited are a profile's rules that are its base's, checked when
	// the base loaded (their lines are the base's).
	inherited map[*Rule]bool

	rules  map[string]*Rule
	checks map[string][]*Rule
	kinds  map[string]*Kind
	// unimplementedLines locates each unimplemented alternative, for
	// messages.
	unimplementedLines []int
}

// Startup describes the ready line a server prints before serving.
type Startup struct {
	Kind string `yaml:"kind"`
	// Rule is what fails when the first frame is not Kind.
	Rule string `yaml:"rule"`
	// Identify says where the ready line names the server (JSON pointers
	// to its name and its version; either may be unset), for the report's
	// certificate.
	Identify *Identify `yaml:"identify"`
}

// Identify locates a server's name and version in a frame.
type Identify struct {
	Name    string `yaml:"name"`
	Version string `yaml:"version"`
}

// Correlation locates the id and method of a frame, as JSON pointers.
type Correlation struct {
	ID     string `yaml:"id"`
	Method string `yaml:"method"`
}

// Role is what a frame is to the peer, which routes on it.
type Role string

// Roles of inbound frames.
const (
	RoleReady        Role = "ready"        // the startup line
	RoleResponse     Role = "response"     // the final answer to a request
	RoleEvent        Role = "event"        // a frame of a request in flight, before its response
	RoleRequest      Role = "request"      // the server asks wirecheck something
	RoleNotification Role = "notification" // a message needing no answer
	RoleRequestOut   Role = "out"          // a frame wirecheck sends
)

// Kind is one message shape on the wire, with exactly one schema.
type Kind struct {
	Name   string `yaml:"name"`
	Role   Role   `yaml:"role"`
	Schema string `yaml:"schema"`
	// Method restricts a response or event kind to answers to that method.
	Method string `yaml:"method"`
	// When lists conditions on the frame's fields, all of which must hold.
	When []Cond `yaml:"when"`
	// Rule is the rule a frame of this kind breaks when it fails Schema.
	Rule string `yaml:"rule"`
	// At, a JSON pointer, applies Schema to that part of the frame (the
	// result of a response) instead of the whole frame.
	At string `yaml:"at"`
	// Versions restricts the kind to these revisions of the protocol
	// (empty: all).
	Versions []string `yaml:"versions"`
	// Invalid marks the kind of an answer to input the document defines no
	// answer shape for: a raw line, a request without an id, or a request
	// that breaks the schema of the kinds wirecheck sends (role out). Only
	// such answers take it (it is tried before every other kind for them,
	// and never for other frames; a frame matching no invalid kind is no
	// answer to a raw line), and
	// frame rules marked valid_only do not judge them: an answer to an
	// invalid request is judged by what the document says of such answers,
	// not by the schema of answers to valid ones.
	Invalid bool `yaml:"invalid"`

	Line int `yaml:"-"`
}

// Cond is one condition on a frame: the value at Path equals Equals, is
// present (Present: true) or absent (Present: false), or is a string
// matching the regular expression Matches.
type Cond struct {
	Path    string `yaml:"path"`
	Equals  any    `yaml:"equals"`
	Present *bool  `yaml:"present"`
	Matches string `yaml:"matches"`

	re *regexp.Regexp
}

// never matches anything: what an uncompilable Matches stands for.
var never = regexp.MustCompile(`[^\s\S]`)

// Regexp is Matches compiled. Load compiles it once so the hot path does
// not; a Cond built by hand is compiled on each use (and matches nothing
// when the expression is invalid), without caching, so concurrent readers
// never write to it.
func (c Cond) Regexp() *regexp.Regexp {
	if c.re != nil {
		return c.re
	}
	re, err := regexp.Compile(c.Matches)
	if err != nil {
		return never
	}
	return re
}

// compile checks and compiles the condition; it returns what is wrong.
func (c *Cond) compile() string {
	if !strings.HasPrefix(c.Path, "/") {
		return fmt.Sprintf("condition path %q must be a JSON pointer starting with '/'", c.Path)
	}
	if c.Matches == "" || c.re != nil {
		return ""
	}
	if c.Present != nil || c.Equals != nil {
		return fmt.Sprintf("condition on %s: matches cannot be combined with equals or present", c.Path)
	}
	re, err := regexp.Compile(c.Matches)
	if err != nil {
		return fmt.Sprintf("condition on %s: matches: %v", c.Path, err)
	}
	c.re = re
	return ""
}

// Rule is one testable statement of the source document.
type Rule struct {
	ID    string        `yaml:"id"`
	Level verdict.Level `yaml:"level"`
	Title string        `yaml:"title"`
	// Section of the source document the rule comes from, and the sentence
	// it tests, quoted.
	Section string `yaml:"section"`
	Quote   string `yaml:"quote"`
	// Sections names the rule's section in the pages of revisions where
	// it differs from Section (a page a later revision moved), for
	// Citation.
	Sections map[string]string `yaml:"sections"`
	// Doc overrides the protocol's source document (generic rules cite
	// JSON-RPC or NDJSON conventions).
	Doc string `yaml:"doc"`
	// Checks names built-in checks that decide this rule (see package
	// check's catalogue); rules without checks are decided by kinds'
	// schemas or by scenario steps.
	Checks []string `yaml:"checks"`
	// Frames applies an extra schema to every inbound frame of the given
	// roles, for statements about all frames of a role (every response
	// carries protocolVersion).
	Frames *FrameRule `yaml:"frames"`
	// Versions limits the rule to these revisions of a versioned protocol
	// (empty: all); under another revision scenarios report it skipped.
	Versions []string `yaml:"versions"`
	// Transports limits the rule to these transports of the protocol
	// (empty: every one). On another transport its checks stand for
	// nothing and the tally reports it skipped with OnlyOn's reason, so
	// no scenario needs to know.
	Transports []string `yaml:"transports"`
	// ConsequenceOf names the rules whose failure this rule's failure
	// follows from when both fail in one scenario: the document's rule
	// about an input is the cause, a general rule that fails only because
	// of it (the server did not survive, the request got no answer) its
	// consequence. The tally then names the cause on this rule's failure
	// (report.Finding.Cause) rather than counting two independent ones.
	ConsequenceOf []string `yaml:"consequence-of"`

	Line int `yaml:"-"`
}

// AppliesOn reports whether the rule holds on a transport ("": any).
func (r *Rule) AppliesOn(transport string) bool {
	return len(r.Transports) == 0 || transport == "" || slices.Contains(r.Transports, transport)
}

// OnlyOn says where the rule holds, for a report of a run on a transport
// where it does not: "stdio only", "HTTP only" (each transport's Title).
// It is "" for a rule of every transport.
func (r *Rule) OnlyOn() string {
	if len(r.Transports) == 0 {
		return ""
	}
	names := make([]string, len(r.Transports))
	for i, t := range r.Transports {
		names[i] = TransportName(t)
	}
	return strings.Join(names, " and ") + " only"
}

// TransportName is a transport as a reader of a report knows it (its
// registered Title: "HTTP" for http).
func TransportName(tr string) string { return transport.Title(tr) }

// AppliesTo reports whether the rule holds in a revision.
func (r *Rule) AppliesTo(version string) bool {
	if len(r.Versions) == 0 || version == "" {
		return true
	}
	for _, v := range r.Versions {
		if v == version {
			return true
		}
	}
	return false
}

// FrameRule applies Schema to every inbound frame whose role is in Roles,
// narrowed to answers to Method and to frames matching When when those are
// set (a statement about one method's results, or about one shape of them).
type FrameRule struct {
	Roles  []Role `yaml:"roles"`
	Schema string `yaml:"schema"`
	Method string `yaml:"method"`
	When   []Cond `yaml:"when"`
	// At applies Schema to the value at this JSON pointer, as Kind.At.
	At string `yaml:"at"`
	// ValidOnly keeps the rule to answers to valid requests: a frame of an
	// invalid kind (Kind.Invalid) is not judged by it.
	ValidOnly bool `yaml:"valid_only"`
}

// Fault is a way the reference server can be told to break the protocol.
type Fault struct {
	Name  string   `yaml:"name"`
	Does  string   `yaml:"does"`
	Trips []string `yaml:"trips"`
	// Also lists rules the fault may trip as a consequence, besides Trips.
	Also []string `yaml:"also"`
	// Version is the revision of a versioned protocol the fault is run
	// under (default: the protocol's default), for rules of one revision.
	Version string `yaml:"version"`
	// Fuzz marks a fault only hostile input shows (a crash on a response
	// to an id never sent): the run's scenarios send none, so the fault
	// table runs it through a fuzz campaign instead.
	Fuzz bool `yaml:"fuzz"`
	// Transport is the transport the fault is run over, for a fault of
	// one transport (default: each transport on which a rule it trips
	// holds, see Protocol.FaultTransports).
	Transport string `yaml:"transport"`
	// Timeout, set, is the --timeout the verdict tables run the fault
	// with instead of their own (one second): a Go duration ("5s"). See
	// Variant.Timeout.
	Timeout string `yaml:"timeout"`
	Line    int    `yaml:"-"`
}

// RunTimeout is the fault's Timeout, 0 when it sets none.
func (f *Fault) RunTimeout() time.Duration { return runTimeout(f.Timeout) }

// Variant is a legal alternative a correct server may choose, which the
// reference server can be told to take.
type Variant struct {
	Name string `yaml:"name"`
	Does string `yaml:"does"`
	// Why says which sentence (or which silence) of the document allows it.
	Why string `yaml:"why"`
	// Version is the revision of a versioned protocol the variant is run
	// under (default: every revision).
	Version string `yaml:"version"`
	// Transport is the transport the variant is run over, for a choice
	// only one transport offers (default: every transport of the protocol).
	Transport string `yaml:"transport"`
	// Timeout, set, is the --timeout the verdict tables run the variant
	// with instead of their own (one second): a Go duration ("5s"), for
	// a variant whose answers take long by what they are (a 5 MB answer
	// parsed and validated under -race, on a loaded machine). It is for
	// the tables' margin, never to widen a bound a rule judges: a rule's
	// own bound is its scenario's within:.
	Timeout string `yaml:"timeout"`
	Line    int    `yaml:"-"`
}

// RunTimeout is the variant's Timeout, 0 when it sets none.
func (v *Variant) RunTimeout() time.Duration { return runTimeout(v.Timeout) }

// runTimeout reads a fault's or a variant's timeout: 0 when it is unset
// or not a positive duration (which Load refuses).
func runTimeout(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0
	}
	return d
}

// badTimeout says what is wrong with a fault's or a variant's timeout:,
// "" when it is unset or a positive duration.
func badTimeout(s string) string {
	if s == "" || runTimeout(s) > 0 {
		return ""
	}
	return fmt.Sprintf("timeout %q: want a positive duration with a unit, such as 5s", s)
}

// Fuzz describes, in data, what the fuzzer needs to drive a protocol: the
// schema its requests are generated from, requests every sequence starts
// with, and how to discover and call the server's tools.
type Fuzz struct {
	// Request is the schema file of a request, for valid and invalid ones.
	Request string `yaml:"request"`
	// Setup messages are sent, in order, at the start of every sequence: a
	// request, whose answer is awaited, or {notify: MESSAGE}, a
	// notification, sent without an id and answered by nothing (see
	// SetupNotification).
	Setup []map[string]any `yaml:"setup"`
	Tools *FuzzTools       `yaml:"tools"`
	// Params are set in the params object of every request the fuzzer
	// sends (setup and tool requests, generated valid and invalid ones
	// whose params is an object or absent), replacing a generated value
	// of the same name: what a revision asks of every request, such as a
	// _meta object. Notifications are left as they are.
	Params map[string]any `yaml:"params"`
	// PerVersion replaces, in one revision of a versioned protocol, the
	// setup and the params (each when given): a revision whose session
	// starts another way. In a versioned protocol every string in setup,
	// tools and params is a template, "{version}" and the revision's vars
	// expanded (see ForVersion).
	PerVersion map[string]*FuzzVersion `yaml:"per_version"`
	// Ignored are lines the document says a server ignores (sonde-serve:
	// "Empty lines are ignored.", the line ""), without their newline:
	// the fuzzer sends them, owed no answer, before each line of only
	// whitespace it sends, and the protocol's frame judge judges an answer
	// to one as run does.
	Ignored []string `yaml:"ignored"`
	// Malformed, when set, judges the answer to a line that is not JSON
	// (a truncated request) by the rule run judges it by, as a scenario's
	// expect_frame step: a server silent on such lines fails it.
	Malformed *FuzzMalformed `yaml:"malformed"`
	// Sources are lists of the server's items (its resources, say), by
	// name, read at the start of a process when the server offers them;
	// Follow are the requests a sequence sends about one of them, or
	// about what the server declared.
	Sources map[string]*FuzzSource `yaml:"sources"`
	Follow  []*FuzzFollow          `yaml:"follow"`
	// Requests are the schemas of the requests a revision or an extension
	// defines, each method its own, drawn beside Request (valid and near
	// valid) where the server declared what their When names: the
	// generic request rarely names a method, so without them a campaign
	// never reaches a method's params.
	Requests []*FuzzRequest `yaml:"requests"`
	// Frames are messages the fuzzer sends unasked and awaits no answer
	// to: where the target is the one that asks (a client under test),
	// the answers and notifications it did not ask for (a response to an
	// id it never sent, a second one to a request, a storm of one
	// notification). Templates as elsewhere, and "$stray" (an id no
	// request of the process carries) and "$asked" (the id of the last
	// request the target sent).
	Frames []*FuzzFrame `yaml:"frames"`
	// Envelope are members a request drawn from one of Requests' schemas
	// is given where it lacks them: a revision whose method schemas
	// leave out the JSON-RPC envelope ("jsonrpc") would otherwise send
	// requests a peer may drop unread, each costing a timeout.
	Envelope map[string]any `yaml:"envelope"`
}

// FuzzFrame is one message the fuzzer may send unasked: Label names it
// in reports; Repeat, when above 1, is the most times it is sent in a row
// (the count drawn from 1 to it).
type FuzzFrame struct {
	Label  string         `yaml:"label"`
	Frame  map[string]any `yaml:"frame"`
	Repeat int            `yaml:"repeat"`
	// Result, when set, is a schema the frame's "result" is drawn from
	// (a valid value, its edges as likely as its middle): an answer a
	// peer must parse whatever it holds.
	Result string `yaml:"result"`
}

// FuzzRequest is the schema of one kind of request the fuzzer draws
// (a method's request, whole), sent once every condition of When holds
// in the setup's answers (a capability or an extension the server
// declared; none: always).
type FuzzRequest struct {
	Schema string   `yaml:"schema"`
	When   []string `yaml:"when"`
}

// FuzzSource is a list of the server's items, read (every page) once a
// process is set up and every condition of When holds: List is the
// request, Items the pointer of the array in its answer, Name the
// pointer of an item's name in it ($name of a follow-up request). A source
// without them ({}) is never listed: its items are what follow-up requests
// yield (the tasks a call makes, where no request lists them).
type FuzzSource struct {
	When  []string       `yaml:"when"`
	List  map[string]any `yaml:"list"`
	Items string         `yaml:"items"`
	Name  string         `yaml:"name"`
	Next  *FuzzNext      `yaml:"next"`
}

// FuzzFollow is a request a sequence may send once its conditions hold:
// When are JSON pointers into the answers of the setup (what the server
// declared: a capability), each present and neither false nor null.
// Request is its template: "$name" is the name of an item of Item (a
// source), drawn from those listed (no item listed, it is not sent);
// "$id" the request's own id; an object {"$some": {MEMBER: {when:
// [POINTER…], value: V}}} an object of a drawn choice of the members whose
// conditions hold (a filter of what the server offers). Undo, when set,
// is a request a later action may send to take back one that succeeded
// (an unsubscribe), its "$name" the same item. Open says the request stays
// open (a subscription): see FuzzOpen. Yields adds to a source's items
// what its answer names (SOURCE: POINTER into the answer): what the
// request made (a task), which later follow-up requests are about.
type FuzzFollow struct {
	When    []string          `yaml:"when"`
	Item    string            `yaml:"item"`
	Request map[string]any    `yaml:"request"`
	Undo    map[string]any    `yaml:"undo"`
	Open    *FuzzOpen         `yaml:"open"`
	Yields  map[string]string `yaml:"yields"`
	Line    int               `yaml:"-"`
}

// FuzzOpen is a request that stays open: the server answers it late or
// never (it ends a subscription so), so no silence of it is judged
// (scenario.Step.Open). Ack, when set, is the frame that must follow it
// within --timeout, judged by its rule (other frames before it are passed
// over; "$id" in its match is the request's id). Cancel is the
// notification a later action sends to close it ("$id" as well); once the
// server has answered a request sent after it, Unanswered is the rule an
// answer to the open request fails (scenario.Step.Cancelled).
type FuzzOpen struct {
	Ack        *FuzzMalformed `yaml:"ack"`
	Cancel     map[string]any `yaml:"cancel"`
	Unanswered string         `yaml:"unanswered"`
}

// FuzzMalformed is the answer a line that is not JSON is owed: the rule,
// the values the answer must carry (JSON pointer to value) and the JSON
// types of others (pointer to type), as in a scenario step.
type FuzzMalformed struct {
	Rule  string            `yaml:"rule"`
	Match map[string]any    `yaml:"match"`
	Type  map[string]string `yaml:"type"`
	// Also are further rules the same answer is judged by, each by its
	// own values (scenario.Step.Also).
	Also []FuzzMalformed `yaml:"also"`
}

// FuzzVersion is what one revision changes in the fuzz model: each of
// its setup, params and follow-up requests, when given, replaces the
// common one; its Requests are drawn besides the common ones (the
// revision's methods, and its extensions').
type FuzzVersion struct {
	Setup    []map[string]any `yaml:"setup"`
	Params   map[string]any   `yaml:"params"`
	Follow   []*FuzzFollow    `yaml:"follow"`
	Requests []*FuzzRequest   `yaml:"requests"`
}

// SetupNotification returns the notification a setup step {notify:
// MESSAGE} sends, and false for a request step.
func SetupNotification(step map[string]any) (map[string]any, bool) {
	if len(step) != 1 {
		return nil, false
	}
	m, ok := step["notify"].(map[string]any)
	return m, ok
}

// SetupAwait returns what a setup step {await: MATCH} waits for: the
// first frame of the target whose fields match (JSON pointer to value),
// passing over the others, as where the target speaks first (a client's
// handshake); false for another step.
func SetupAwait(step map[string]any) (map[string]any, bool) {
	if len(step) != 1 {
		return nil, false
	}
	m, ok := step["await"].(map[string]any)
	return m, ok
}

// FuzzTools discovers tools with List and calls one with Call, a request
// template in which the strings "$name" and "$args" are replaced by the
// tool's name and the generated arguments, and "$token" by a string no
// other request of the run carries (a progress token). Next, when set, pages through
// a list the server splits.
type FuzzTools struct {
	List   map[string]any `yaml:"list"`
	Items  string         `yaml:"items"`
	Name   string         `yaml:"name"`
	Schema string         `yaml:"schema"`
	Call   map[string]any `yaml:"call"`
	Next   *FuzzNext      `yaml:"next"`
	// Unbounded says the protocol bounds no time for a tool call (as some protocols do):
	// a call unanswered within --timeout while the server answers the
	// probe sent after it is slow, not judged, as run leaves it
	// (scenario.Step.Slow).
	Unbounded bool `yaml:"unbounded"`
}

// FuzzNext says how a list goes on: From is the JSON pointer of the next
// page's cursor in a list response (absent or null on the last page), To
// the pointer where the next list request carries it.
type FuzzNext struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
}

// Document is one document a spec's rules cite.
type Document struct {
	// Name is how rules cite it (the protocol's source:, a rule's doc:).
	Name string `yaml:"name" json:"name"`
	// Title is how a reader knows it: "the sonde-serve protocol document".
	Title string `yaml:"title" json:"title"`
	// File is where its text is kept (under shared/seeds or
	// shared/reference), URL where it is published.
	File string `yaml:"file" json:"file,omitempty"`
	URL  string `yaml:"url" json:"url,omitempty"`
	// SHA256 pins the text the rules were written against: of the file,
	// or of a folder the sha256 of its files' `sha256sum` lines, sorted by
	// path (`find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum`
	// in the folder).
	SHA256 string `yaml:"sha256" json:"sha256,omitempty"`

	Line int `yaml:"-" json:"-"`
}

// Document returns the declaration of the document rules cite as name,
// or nil.
func (p *Protocol) Document(name string) *Document {
	for _, d := range p.Documents {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// DocOf is the name of the document a rule is cited from, as Citation
// names it.
func (p *Protocol) DocOf(r *Rule) string {
	doc := r.Doc
	if doc == "" {
		doc = p.Source
	}
	if v := p.laterDoc(r); v != nil {
		doc = v.Doc
	}
	return doc
}

// SectionOf is the section of DocOf(r) a rule is cited from.
func (p *Protocol) SectionOf(r *Rule) string {
	if v := p.laterDoc(r); v != nil && r.Sections[v.ID] != "" {
		return r.Sections[v.ID]
	}
	return r.Section
}

// DocTitle is the human title of the document a rule is cited from, ""
// when the spec declares none.
func (p *Protocol) DocTitle(r *Rule) string {
	if d := p.Document(p.DocOf(r)); d != nil {
		return d.Title
	}
	return ""
}

// Cited lists the declared documents the rules of the protocol's
// revision cite (only those of rules ids, when given), in declaration
// order.
func (p *Protocol) Cited(ids ...string) []*Document {
	used := map[string]bool{}
	for _, r := range p.Rules {
		if r.AppliesTo(p.Version) && (len(ids) == 0 || slices.Contains(ids, r.ID)) {
			used[p.DocOf(r)] = true
		}
	}
	var out []*Document
	for _, d := range p.Documents {
		if used[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

// Citation is how reports show where a rule comes from. A rule quoted
// from a later revision's page than the one the protocol is resolved for
// (its Doc is that revision's Doc) cites the page of the resolved
// revision: a finding about a session of 2024-11-05 points at what
// 2024-11-05 says, not at what a server of that revision never agreed to.
func (p *Protocol) Citation(r *Rule) string {
	doc, section := r.Doc, r.Section
	if doc == "" {
		doc = p.Source
	}
	if v := p.laterDoc(r); v != nil {
		doc = v.Doc
		if s := r.Sections[v.ID]; s != "" {
			section = s
		}
	}
	if section == "" {
		return doc
	}
	return doc + " § " + section
}

// laterDoc is the revision the protocol is resolved for when r, a rule
// of that revision, is quoted from a later revision's document; nil
// otherwise.
func (p *Protocol) laterDoc(r *Rule) *Version {
	if p.Versions == nil || r.Doc == "" || !r.AppliesTo(p.Version) {
		return nil
	}
	at, from := -1, -1
	for i, v := range p.Versions.List {
		if v.ID == p.Version {
			at = i
		}
		if v.Doc != "" && v.Doc == r.Doc {
			from = i
		}
	}
	if at < 0 || from <= at || p.Versions.List[at].Doc == "" {
		return nil
	}
	return p.Versions.List[at]
}

// Rule returns the catalogue entry with that ID, or nil.
func (p *Protocol) Rule(id string) *Rule { return p.rules[id] }

// RulesForCheck returns the rules a built-in check decides in this
// protocol, on the transport it was resolved for.
func (p *Protocol) RulesForCheck(check string) []*Rule { return p.checks[check] }

// Kind returns the kind with that name, or nil.
func (p *Protocol) Kind(name string) *Kind { return p.kinds[name] }

// ReportRules converts the catalogue for a report.
func (p *Protocol) ReportRules() []verdict.Rule {
	out := make([]verdict.Rule, 0, len(p.Rules))
	for _, r := range p.Rules {
		out = append(out, verdict.Rule{ID: r.ID, Level: r.Level, Title: r.Title, Source: p.Citation(r), Quote: r.Quote, Document: p.DocTitle(r)})
	}
	return out
}

// Fault returns the fault with that name, or nil.
func (p *Protocol) Fault(name string) *Fault {
	for _, f := range p.Faults {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Variant returns the variant with that name, or nil.
func (p *Protocol) Variant(name string) *Variant {
	for _, v := range p.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Selects reports whether id (a rule ID or a scenario name) matches one of
// globs (path.Match syntax, as --rules and --scenario take them); no globs
// select everything.
func Selects(globs []string, id string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, _ := path.Match(g, id); ok {
			return true
		}
	}
	return false
}

// CheckGlobs refuses a malformed glob (as --rules and --scenario take
// them) before anything runs: Selects takes one as matching nothing.
func CheckGlobs(globs ...[]string) error {
	for _, g := range slices.Concat(globs...) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("bad glob %q: %v", g, err)
		}
	}
	return nil
}

// problems lists what is wrong with a follow-up request of the fuzz
// model: its request, its item's source, its conditions, its open
// request's rules.
func (fl *FuzzFollow) problems(sources map[string]*FuzzSource, rules map[string]*Rule) []string {
	if fl == nil || fl.Request == nil {
		return []string{"request is required"}
	}
	var out []string
	if fl.Item != "" && sources[fl.Item] == nil {
		out = append(out, fmt.Sprintf("item %q is no source of the fuzz model", fl.Item))
	}
	if fl.Item == "" && (mentions(fl.Request, "$name") || mentions(fl.Undo, "$name")) {
		out = append(out, "$name needs an item (a source)")
	}
	for _, w := range fl.When {
		if !strings.HasPrefix(w, "/") {
			out = append(out, fmt.Sprintf("when %q is not a JSON pointer", w))
		}
	}
	out = append(out, someProblems(fl.Request)...)
	for item, ptr := range fl.Yields {
		if sources[item] == nil {
			out = append(out, fmt.Sprintf("yields %q: no source of the fuzz model", item))
		}
		if !strings.HasPrefix(ptr, "/") {
			out = append(out, fmt.Sprintf("yields %q: %q is not a JSON pointer", item, ptr))
		}
	}
	if o := fl.Open; o != nil {
		if fl.Undo != nil {
			out = append(out, "an open request is closed by its cancel, not undone")
		}
		if o.Ack != nil && rules[o.Ack.Rule] == nil {
			out = append(out, fmt.Sprintf("open ack: rule %q is not in the catalogue", o.Ack.Rule))
		}
		if o.Ack != nil {
			for _, a := range o.Ack.Also {
				if rules[a.Rule] == nil {
					out = append(out, fmt.Sprintf("open ack also: rule %q is not in the catalogue", a.Rule))
				}
			}
		}
		if o.Unanswered != "" && rules[o.Unanswered] == nil {
			out = append(out, fmt.Sprintf("open unanswered: rule %q is not in the catalogue", o.Unanswered))
		}
		if o.Unanswered != "" && o.Cancel == nil {
			out = append(out, "open unanswered needs a cancel")
		}
	}
	return out
}

// someProblems checks the "$some" objects of a template: each alone in
// its object, each member {when: [POINTER…], value: V}.
func someProblems(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		raw, has := x["$some"]
		if !has {
			for _, y := range x {
				out = append(out, someProblems(y)...)
			}
			return out
		}
		members, ok := raw.(map[string]any)
		if !ok || len(x) != 1 {
			return []string{"$some takes an object of members and stands alone in its object"}
		}
		for k, m := range members {
			mm, ok := m.(map[string]any)
			if _, hasValue := mm["value"]; !ok || !hasValue {
				out = append(out, fmt.Sprintf("$some member %q: give {when: [POINTER…], value: V}", k))
				continue
			}
			when, _ := mm["when"].([]any)
			if _, has := mm["when"]; has && when == nil {
				out = append(out, fmt.Sprintf("$some member %q: when is a list of JSON pointers", k))
			}
			for _, w := range when {
				if s, _ := w.(string); !strings.HasPrefix(s, "/") {
					out = append(out, fmt.Sprintf("$some member %q: when %v is not a JSON pointer", k, w))
				}
			}
			for kk := range mm {
				if kk != "when" && kk != "value" {
					out = append(out, fmt.Sprintf("$some member %q: unknown key %q (when, value)", k, kk))
				}
			}
		}
		slices.Sort(out)
	case []any:
		for _, y := range x {
			out = append(out, someProblems(y)...)
		}
	}
	return out
}

// mentions reports whether a template holds the string s anywhere.
func mentions(v any, s string) bool {
	switch x := v.(type) {
	case string:
		return x == s
	case map[string]any:
		for _, y := range x {
			if mentions(y, s) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if mentions(y, s) {
				return true
			}
		}
	}
	return false
}
