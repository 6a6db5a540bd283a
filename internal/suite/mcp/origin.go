package mcp

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/mcp/sse"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/sockets"
	"github.com/wirecheck/wirecheck/internal/transport"
)

// foreignOrigin is an Origin no server serves: DNS rebinding looks so.
const foreignOrigin = "http://dns-rebinding.wirecheck.invalid"

func httpOrigin(e *scenario.Env) error {
	rules := []string{"MCP-ORIGIN-1", "MCP-ORIGIN-2", "MCP-BIND-1"}
	// Without a session the probes still go: over sse the twin is a GET,
	// and binding needs no request at all.
	x, _ := exchanger(e, "", rules...)
	if x == nil {
		return nil
	}
	in := holding(e, rules)
	// Over sse the twin is the stream's GET (the connection the Security
	// Warning speaks of); over http a request of the session.
	ex := httpmcp.Exchange{Method: http.MethodPost, Body: twinBody(current(e))}
	if x.Kind() == "sse" {
		ex = httpmcp.Exchange{Method: http.MethodGet, Until: func(sse.Event) bool { return true }}
	}
	res, seq := exchange(e, x, "the twin, without Origin", ex)
	if !served(res) {
		why := fmt.Sprintf("the twin request without Origin (transcript line %d) was not served (%s): nothing to compare a probe with", seq, answered(res))
		skipAll(e, why, "MCP-ORIGIN-1", "MCP-ORIGIN-2")
	} else {
		ex.Set = map[string]string{"Origin": foreignOrigin}
		res, seq = exchange(e, x, "the twin with Origin: "+foreignOrigin, ex)
		judgeOrigin(e, in, res, seq)
	}
	if in["MCP-BIND-1"] {
		judgeBind(e, x)
	}
	return nil
}

func judgeOrigin(e *scenario.Env, in map[string]bool, res *httpmcp.Result, seq int) {
	switch {
	case served(res):
		e.Fail("MCP-ORIGIN-1", seq, "a request with a foreign Origin was served, like its twin without one", "a refusal (4xx)", answered(res))
		if in["MCP-ORIGIN-2"] {
			e.Skip("MCP-ORIGIN-2", "the server serves foreign origins (MCP-ORIGIN-1): there is no refusal whose status to judge")
		}
		return
	case refused(res):
		e.Pass("MCP-ORIGIN-1", seq)
	default:
		e.Fail("MCP-ORIGIN-1", seq, "a request with a foreign Origin was not refused with a 4xx status", "a refusal (4xx)", answered(res))
	}
	if !in["MCP-ORIGIN-2"] {
		return
	}
	if res != nil && res.Status == http.StatusForbidden {
		e.Pass("MCP-ORIGIN-2", seq)
		return
	}
	e.Fail("MCP-ORIGIN-2", seq, "a request with a foreign Origin was not refused 403", "403 Forbidden", answered(res))
}

// judgeBind: a launched server listens on loopback only. It is read
// from the machine (sockets, /proc): trying the server's port on another
// address of the machine would send packets beyond loopback, which the
// user never named. Against a server reached by --url alone the port is
// maybe not this machine's at all.
func judgeBind(e *scenario.Env, x httpmcp.Exchanger) {
	if !x.Launched() {
		e.Skip("MCP-BIND-1", "the server was not launched by wirecheck (--url): \"when running locally\" cannot be told")
		return
	}
	pid := 0
	if l, ok := x.(transport.Launcher); ok {
		pid = l.PID()
	}
	if runtime.GOOS != "linux" || pid == 0 {
		e.Skip("MCP-BIND-1", "where the launched server listens is read from /proc, which this machine ("+runtime.GOOS+") has not: wirecheck connects to no address but loopback to find out")
		return
	}
	ep := x.Endpoint()
	port, err := strconv.ParseUint(ep.Port(), 10, 16)
	if ep.Port() == "" {
		port, err = map[string]uint64{"http": 80, "https": 443}[strings.ToLower(ep.Scheme)], nil
	}
	if err != nil || port == 0 {
		e.Skip("MCP-BIND-1", "the endpoint "+ep.Redacted()+" names no port to look for")
		return
	}
	all, err := sockets.Proc{}.Listening(pid)
	if err != nil {
		e.Skip("MCP-BIND-1", "the launched server's sockets could not be read from /proc: "+err.Error())
		return
	}
	var on, bad []string
	for _, l := range all {
		if uint64(l.Addr.Port()) != port {
			continue
		}
		on = append(on, l.String())
		if !l.Loopback() {
			bad = append(bad, l.String()+map[bool]string{true: " (every interface)", false: ""}[l.Wildcard()])
		}
	}
	seq := e.Annotate(fmt.Sprintf("the launched server (process %d and its children) listens on port %d at: %s", pid, port, orNone(on)))
	switch {
	case len(on) == 0:
		e.Skip("MCP-BIND-1", fmt.Sprintf("no process of the launched server (process %d and its children) listens on the endpoint's port %d: another serves it (a container's proxy?), whose binding cannot be read", pid, port))
	case len(bad) == 0:
		e.Pass("MCP-BIND-1", seq)
	default:
		e.Fail("MCP-BIND-1", seq, "the launched server listens on "+strings.Join(bad, ", ")+", not on loopback only",
			"bound to 127.0.0.1 (or ::1) only", "listening on "+strings.Join(on, ", "))
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) }

func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}
