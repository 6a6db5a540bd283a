// Package conformance runs a wirecheck protocol suite from a Go test, so
// a server team gets conformance in `go test` rather than from a second
// tool:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Options{Protocol: "mcp", Command: []string{"./bin/server", "--stdio"}})
//	}
//
// The suite runs once, as `wirecheck run` would; then every rule of the
// catalogue is a subtest named by its ID, so
//
//	go test -run 'TestConformance/MCP-LIFECYCLE'
//
// shows the lifecycle rules alone. A rule that fails at or above
// Options.Level (MUST by default) fails its subtest with the evidence:
// the scenario, Expected and Actual, the transcript of the exchange and
// the command that reproduces it. A rule skipped by the run is a skipped
// subtest with the reason; a failure below the level, or one a baseline
// knows, is logged. Reports are written where Options.Reports asks, in
// the formats of `--report`.
//
// A server need not be a process. Options.Serve runs a stdio server in
// the test's own process (its input and output are pipes, with the same
// bounds as a launched server's), and Options.Handler serves an
// http.Handler on a loopback port for the HTTP transports. A goroutine
// cannot be killed: a Serve or a Handler call that never returns is left
// behind once its input or its connection is closed and a grace period
// is over (a Handler's reported as a HungError), so it cannot hang the
// end of the run. Reference
// returns the built-in reference server of a protocol, with faults if
// asked, as such a function: the way to see what a failure looks like.
//
// A client team sets Role "client": wirecheck plays the server, and the
// client's Command names it {server} where it takes its server's command
// (over HTTP, {url} where it takes its URL), as run --role client does:
//
//	conformance.Run(t, conformance.Options{Protocol: "mcp", Role: "client",
//		Command: []string{"./bin/agent", "--mcp-server", "{server}", "--list-tools"}})
//
// On stdio {server} is a script that runs the test binary itself, as
// `TEST-BINARY connect-back SOCKET`, to relay the client's pipes back to
// the run; the package's init does that relay and exits, before the
// testing package or a TestMain sees those arguments, so nothing is to be
// installed and no TestMain is needed. Started with any other arguments
// (or a SOCKET that is not one a run made, in a wirecheck-client- folder)
// the binary runs as it would. The rules are the client role's
// (MCP-CLIENT-*, `wirecheck rules --protocol mcp --role client`).
//
// Options mirror the flags of `wirecheck run`; their zero values are the
// command's defaults.
package conformance
