// Package mcp holds the MCP scenarios. They are written in Go because every
// one of them depends on the session: the initialize handshake, the
// capabilities the server declared, the tools, resources and prompts it
// lists, and the notifications it sends while it works.
//
// A rule's check is in the file of its family (families_test.go holds the
// same table and fails on a check written elsewhere):
//
//	lifecycle.go      MCP-LIFECYCLE, MCP-DISCOVER, MCP-PING, MCP-VERSION (initialize, server/discover, revision negotiation)
//	jsonrpc.go        MCP-JSONRPC (errors, bad input, batches); MCP-STDIO-3, the server surviving bad input
//	stdio.go          MCP-STDIO (exit when stdin closes)
//	tools.go          MCP-TOOLS, MCP-PAGINATION
//	resources.go      MCP-RESOURCES (subscribe and updates included)
//	prompts.go        MCP-PROMPTS, MCP-COMPLETION
//	logging.go        MCP-LOGGING
//	cancel.go         MCP-CANCEL
//	meta.go           MCP-META (_meta of 2026-07-28)
//	mrtr.go           MCP-MRTR (multi round-trip results)
//	subscriptions.go  MCP-SUBS (subscriptions/listen)
//	tasks.go          MCP-TASKS (task-augmented tools/call, tasks/get, tasks/result, tasks/list, tasks/cancel; 2025-11-25)
//	judge.go          the frame judge: MCP-PROGRESS, MCP-LISTCHANGED, MCP-CLIENT, MCP-STDIO-5
//	                  (its checks of other families are judge methods in their
//	                  family's file: MCP-LOGGING-1/3 logging.go, MCP-SUBS
//	                  subscriptions.go, MCP-RESOURCES-7/8 resources.go,
//	                  MCP-HTTP-STREAM-5 httpstream.go)
//	http.go           the HTTP scenarios' list and probes; MCP-HTTP-ACCEPT, MCP-HTTP-ENDPOINT, MCP-HTTP-VERSION
//	httpsession.go    MCP-SESSION
//	httpstream.go     MCP-HTTP-STREAM, MCP-HTTP-GET
//	httpinput.go      MCP-HTTP-BADBODY
//	httpcancel.go     MCP-HTTP-CANCEL
//	resume.go         MCP-HTTP-RESUME, MCP-HTTP-DISCONNECT
//	era.go            MCP-HTTP-LEGACY (a 2026-07-28-only server facing older clients)
//	headers.go        MCP-HEADER
//	auth.go           MCP-AUTH
//	origin.go         MCP-ORIGIN, MCP-BIND
//	sse.go            MCP-SSE (the legacy HTTP+SSE transport)
//	skills.go         MCP-SKILLS (the skills extension, SEP-2640, of a 2026-07-28 server declaring it)
//	taskext.go        MCP-TASKEXT (the tasks extension, SEP-2663, of a 2026-07-28 server declaring it)
//
// The rest is shared: scenarios.go registers the scenarios in the order
// they run; session.go is the per-process state and the calls through it;
// calls.go raw exchanges and list paging; modern.go and unspoken.go the
// revision a process speaks and the fallback when the server does not
// speak the one asked for; revisions.go what the suite asks the spec's
// revision table (modern, the newest revision with a feature); slowtool.go the slow tool the cancel and resume
// scenarios call; profile.go and profile_more.go the API profiles of MCP
// use.
package mcp
