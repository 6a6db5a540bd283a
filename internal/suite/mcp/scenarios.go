package mcp

import (
	"github.com/wirecheck/wirecheck/internal/scenario"
)

// Scenarios returns the MCP scenarios, in the order they run. The runner
// gives each fresh scenario a process and runs those processes side by
// side (lanes): initialize and the feature scenarios, bad input included
// (a barrier request makes it cost a round trip); cancel (a slow tool
// runs its course there while the rest goes on); before-initialize, then
// shutdown on the same process (the 2 s a server may take to exit runs
// alongside the rest); version-negotiation, which restarts the server.
func Scenarios() []*scenario.Scenario {
	out := []*scenario.Scenario{{
		Name:  "initialize",
		Title: "initialize with the run's revision: a result with the same revision, no request but ping before initialized, then ping",
		Rules: []string{"MCP-LIFECYCLE-1", "MCP-LIFECYCLE-3", "MCP-LIFECYCLE-6", "MCP-PING-1", "MCP-DISCOVER-1", "MCP-META-2"},
		Fresh: true,
		Idle:  initializedPause,
		Run:   initialize,
	}, {
		Name:  "jsonrpc-errors",
		Title: "an unknown method is answered -32601 with its integer id, an unknown notification is not answered",
		Rules: []string{"MCP-JSONRPC-6", "MCP-JSONRPC-9"},
		Idle:  lateAnswer,
		Run:   jsonrpcErrors,
	}, {
		Name:  "batch",
		Title: "2025-03-26: a batch of two pings is answered with an array of their two responses",
		Rules: []string{"MCP-JSONRPC-10"},
		Run:   batch,
	}, {
		Name:  "tools",
		Title: "tools: every page listed, every inputSchema compiled, every tool called with generated arguments and a progress token, structured output checked, an unknown tool refused, list_changed judged",
		Rules: []string{"MCP-TOOLS-1", "MCP-TOOLS-3", "MCP-TOOLS-5", "MCP-TOOLS-6", "MCP-TOOLS-7", "MCP-TOOLS-8", "MCP-TOOLS-9", "MCP-TOOLS-10", "MCP-PAGINATION-1", "MCP-PROGRESS-1", "MCP-PROGRESS-2", "MCP-STDIO-5", "MCP-LISTCHANGED-1",
			"MCP-HTTP-STREAM-4", "MCP-HTTP-STREAM-5", "MCP-HTTP-GET-2"},
		Run: tools,
	}, {
		Name:  "resources",
		Title: "resources: listed, read, templates listed, an unknown URI refused, subscribed (updates judged) and unsubscribed",
		Rules: []string{"MCP-RESOURCES-1", "MCP-RESOURCES-3", "MCP-RESOURCES-4", "MCP-RESOURCES-5", "MCP-RESOURCES-6", "MCP-RESOURCES-7", "MCP-RESOURCES-8"},
		Run:   resources,
	}, {
		Name:  "prompts",
		Title: "prompts: listed, each got with its required arguments, an unknown one refused, an argument completed",
		Rules: []string{"MCP-PROMPTS-1", "MCP-PROMPTS-3", "MCP-PROMPTS-4", "MCP-PROMPTS-5", "MCP-COMPLETION-1", "MCP-COMPLETION-2"},
		Run:   prompts,
	}, {
		Name:  "logging",
		Title: "logging/setLevel accepts a valid level and refuses an invalid one; log notifications come only from a server declaring logging",
		Rules: []string{"MCP-LOGGING-1", "MCP-LOGGING-2"},
		Idle:  logSettle,
		Run:   logging,
	}, {
		Name:  "mrtr",
		Title: "2026-07-28: a tool, prompt or resource answered input_required is retried with the input it asked for; again without it, and declaring no capability",
		Rules: mrtrRules,
		Run:   mrtr,
	}, {
		Name:  "subscriptions",
		Title: "2026-07-28: subscriptions/listen for one kind of notification is acknowledged first, tags its notifications, sends nothing else, and ends when cancelled",
		Rules: []string{"MCP-SUBS-1", "MCP-SUBS-2", "MCP-SUBS-3", "MCP-SUBS-4"},
		Idle:  2 * lateAnswer,
		Run:   subscriptions,
	}, {
		Name:  "tasks",
		Title: "2025-11-25: a tool called as a task: created working, polled, its result once terminal as without a task, listed, kept terminal; a working task cancelled; unknown taskIds refused",
		Rules: taskRules,
		Idle:  taskIdle,
		Run:   taskLifecycle,
	}, {
		Name:  "log-level",
		Title: "2026-07-28: no log notification for a request without io.modelcontextprotocol/logLevel; an invalid level refused",
		Rules: []string{"MCP-LOGGING-3", "MCP-LOGGING-4"},
		Idle:  2 * logSettle,
		Run:   logLevel,
	}, {
		Name:  "parse-error",
		Title: "a line (over HTTP a body) that is not JSON is answered -32700 with id null, and the server goes on",
		Rules: []string{"MCP-JSONRPC-7", "MCP-STDIO-3", "MCP-HTTP-BADBODY-1"},
		Run:   parseError,
	}, {
		Name:  "invalid-request",
		Title: "JSON that is not a request is answered -32600, and the server goes on",
		Rules: []string{"MCP-JSONRPC-8", "MCP-STDIO-3", "MCP-HTTP-BADBODY-1"},
		Run:   invalidRequest,
	}, {
		Name:  "cancel",
		Title: "cancellations of an unknown and of an answered request are ignored",
		Rules: []string{"MCP-CANCEL-1"},
		Idle:  2 * lateAnswer,
		Run:   cancel,
	}, {
		// Apart from cancel: its slow tool runs its course in a lane of its
		// own, beside the rest.
		Name:  "cancel-in-progress",
		Title: "a slow tool call cancelled in progress is not answered",
		Rules: []string{"MCP-CANCEL-2"},
		Fresh: true,
		Idle:  slowTarget + lateGrace,
		Run:   cancelInProgress,
	}, {
		Name:  "before-initialize",
		Title: "a request before initialize gets an answer, and initialize still succeeds",
		Rules: []string{"MCP-LIFECYCLE-5"},
		Fresh: true,
		Run:   beforeInitialize,
	}, {
		Name:  "shutdown",
		Title: "the server exits when its stdin closes (stdio only)",
		Rules: []string{"MCP-STDIO-4"},
		Idle:  exitWait,
		Run:   shutdown,
	}, {
		Name:  "version-negotiation",
		Title: "an unsupported revision is answered with one the server supports, which it then echoes when asked for (2026-07-28: an unknown _meta revision is -32022, _meta without clientCapabilities -32602)",
		Rules: []string{"MCP-LIFECYCLE-3", "MCP-LIFECYCLE-4", "MCP-VERSION-1", "MCP-META-1", "MCP-META-3"},
		Fresh: true,
		Run:   versionNegotiation,
	}}
	out = append(out, httpScenarios()...)
	out = append(out, httpCancelScenario(), httpEraScenario())
	out = append(out, skillsScenario())
	out = append(out, taskExtScenario())
	for _, s := range out {
		s.File = file
		skipUnspoken(s)
	}
	return out
}

// skipAll reports rules skipped for one reason.
func skipAll(e *scenario.Env, why string, rules ...string) {
	for _, r := range rules {
		e.Skip(r, why)
	}
}
