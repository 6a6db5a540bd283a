package protocols

import (
	// The HTTP transports (http, sse) and their checks register with the
	// engine in this package's init: every spec that names them, MCP's or
	// a profile's, loads through here.
	_ "github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/peer"
	agentbridgeserver "github.com/wirecheck/wirecheck/internal/refserver/agentbridge"
	mcpserver "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	mcpauthzserver "github.com/wirecheck/wirecheck/internal/refserver/mcpauthz"
	sondehubserver "github.com/wirecheck/wirecheck/internal/refserver/sondehub"
	sondeserver "github.com/wirecheck/wirecheck/internal/refserver/sondeserve"
	sophonserver "github.com/wirecheck/wirecheck/internal/refserver/sophon"
	toolhostserver "github.com/wirecheck/wirecheck/internal/refserver/toolhost"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	agentbridgesuite "github.com/wirecheck/wirecheck/internal/suite/agentbridge"
	mcpsuite "github.com/wirecheck/wirecheck/internal/suite/mcp"
	mcpauthzsuite "github.com/wirecheck/wirecheck/internal/suite/mcpauthz"
	sondehubsuite "github.com/wirecheck/wirecheck/internal/suite/sondehub"
	sondesuite "github.com/wirecheck/wirecheck/internal/suite/sondeserve"
	sophonsuite "github.com/wirecheck/wirecheck/internal/suite/sophon"
	toolhostsuite "github.com/wirecheck/wirecheck/internal/suite/toolhost"
)

// Module is one protocol's Go parts. Its data parts are found by its ID in
// the embedded trees: specs/ID.yaml (kinds, rules, faults, variants, the
// revisions), schemas/ID/ and fixtures/ID/. Adding a protocol is adding
// those files and one Module to modules.
type Module interface {
	ID() string
	// Scenarios are the scenarios written in Go, run after the fixture
	// files (nil when the fixtures say it all).
	Scenarios() []*scenario.Scenario
	// Handler answers the requests the server sends (nil when it sends
	// none).
	Handler() peer.Handler
	// Serve runs the reference server until o.In ends and returns its
	// exit code.
	Serve(o ServeOptions) int
}

// Judged is a Module that brings a frame judge (peer.Judge): the peer
// shows it every frame of a process, whichever command sent the request.
type Judged interface {
	Judge() peer.NewJudge
}

// Stepped is a Module whose peer, in scenarios made of steps (a fuzz
// campaign's sequences, the files replay runs), needs a handler made for
// the run's revision: a client role's, where the target asks and
// wirecheck, as its server, answers every request (its Go scenarios
// answer for themselves). StepHandler is nil where there is none.
type Stepped interface {
	StepHandler(p *spec.Protocol) peer.Handler
}

// ParamChecker is a Module whose suite takes --param settings of its
// own: CheckParams refuses a value it would not know what to do with.
type ParamChecker interface {
	CheckParams(params map[string]string) error
}

// module is a Module made of the package-level functions of a suite and
// a reference server; every built-in protocol (modules, below) is one.
type module struct {
	id        string
	scenarios func() []*scenario.Scenario
	handler   peer.Handler
	judge     peer.NewJudge
	serve     func(ServeOptions) int
	// steps, when set, is the handler of step scenarios (Stepped).
	steps func(*spec.Protocol) peer.Handler
	// params, when set, checks the run's --param settings (ParamChecker).
	params func(map[string]string) error
}

func (m module) CheckParams(params map[string]string) error {
	if m.params == nil {
		return nil
	}
	return m.params(params)
}

func (m module) ID() string                      { return m.id }
func (m module) Scenarios() []*scenario.Scenario { return m.scenarios() }
func (m module) Handler() peer.Handler           { return m.handler }
func (m module) Judge() peer.NewJudge            { return m.judge }
func (m module) Serve(o ServeOptions) int        { return m.serve(o) }

func (m module) StepHandler(p *spec.Protocol) peer.Handler {
	if m.steps == nil {
		return nil
	}
	return m.steps(p)
}

var modules = []Module{
	module{id: "sonde-serve", scenarios: sondesuite.Scenarios, judge: sondesuite.NewJudge, serve: sondeserver.Serve},
	module{id: "mcp", scenarios: mcpsuite.Scenarios, handler: mcpsuite.Handler, judge: mcpsuite.NewJudge, serve: mcpserver.Serve},
	module{id: "agent-bridge", scenarios: agentbridgesuite.Scenarios, handler: agentbridgesuite.Handler, serve: agentbridgeserver.Serve},
	module{id: "tool-host", scenarios: toolhostsuite.Scenarios, serve: toolhostserver.Serve},
	module{id: "sophon", scenarios: sophonsuite.Scenarios, serve: sophonserver.Serve},
	module{id: "sonde-hub", scenarios: sondehubsuite.Scenarios, serve: sondehubserver.Serve},
	module{id: "mcp-authorization", scenarios: mcpauthzsuite.Scenarios, serve: mcpauthzserver.Serve},
}

// Revisions lists the revisions a run may be judged by, in the order of
// the spec; nil for a protocol without revisions.
func (b *Bundle) Revisions() []string {
	if b.Protocol.Versions == nil {
		return nil
	}
	return b.Protocol.Versions.IDs()
}

// DefaultRevision is the revision a run is judged by when none is asked
// for ("" for a protocol without revisions).
func (b *Bundle) DefaultRevision() string {
	if b.Protocol.Versions == nil {
		return ""
	}
	return b.Protocol.Versions.Default
}

// RevisionParam is the run setting (runner.Config.Params, a saved
// reproducer's params) that carries the revision to the scenarios, e.g.
// "mcp-version"; "" for a protocol without revisions. Settings resolves a
// command's --revision and --param through it.
func (b *Bundle) RevisionParam() string {
	if b.Protocol.Versions == nil {
		return ""
	}
	return b.Protocol.Versions.Param
}
