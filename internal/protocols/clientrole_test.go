package protocols_test

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The client role's table, apart from the protocols' (faults_test.go,
// verdicts.txt), whose runs are of servers: every fault of the MCP
// reference client trips its rules and no rule it does not name; every
// variant, and the clean client under every revision, passes.
var _ = Describe("the MCP client role's reference client", func() {
	const id = "mcp-client"
	b, err := protocols.Load(id)
	if err != nil {
		panic(err)
	}
	// Every authorization extension selected: the reference client
	// implements them all, and their faults need them judged.
	exts := map[string]string{"extension": "client-credentials\nworkload-identity\nenterprise-managed"}
	// cfg is a run's configuration; own is its fault's or variant's
	// timeout: (0: the tables').
	cfg := func(own time.Duration) runner.Config {
		return runner.Config{Timeout: cmp.Or(own, timeout), StartupTimeout: startupTimeout, Jobs: 4, Params: exts}
	}
	for _, f := range b.Protocol.Faults {
		if f.Fuzz {
			// Only hostile input shows it: the run, which sends none,
			// passes; internal/fuzz's client-role campaign finds it.
			It("passes the run with the fuzz-only fault "+f.Name, func() {
				rep, err := testrun.Run(testrun.Server{Protocol: id, Faults: []string{f.Name}, Revision: f.Version, Transport: f.Transport}, cfg(f.RunTimeout()))
				Expect(err).NotTo(HaveOccurred())
				Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			})
			continue
		}
		It("trips "+f.Name+"'s rules with it", func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Faults: []string{f.Name}, Revision: f.Version, Transport: f.Transport}, cfg(f.RunTimeout()))
			Expect(err).NotTo(HaveOccurred())
			got := broken(rep)
			for _, r := range f.Trips {
				Expect(got).To(ContainElement(r), "fault %s: %s", f.Name, evidence(rep, r))
			}
			for _, r := range got {
				Expect(slices.Contains(f.Trips, r) || slices.Contains(f.Also, r)).To(BeTrue(), "fault %s also broke %s:\n%s", f.Name, r, evidence(rep, r))
			}
		})
	}
	for _, v := range b.Protocol.Variants {
		It("passes with the variant "+v.Name, func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Variants: []string{v.Name}, Revision: v.Version, Transport: v.Transport}, cfg(v.RunTimeout()))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
		})
	}
	// Under 2026-07-28 without modern the client opens with initialize
	// and is judged by 2025-11-25: the auth scenarios' rules of
	// 2026-07-28 alone skip rather than go unobserved. With probe under
	// 2025-11-25 it opens with server/discover, is refused 400 as a
	// server of that revision refuses it, and falls back to initialize,
	// which goes on in the connection the probe began: LIFECYCLE-1 is
	// judged, and passes. With probe-http under 2026-07-28 it falls
	// back after each 400 client-http-probe-fallback refuses its probe
	// with: LIFECYCLE-6 passes.
	for _, over := range []struct{ transport, revision, variant string }{
		{"http", "2025-11-25", ""}, {"http", "2026-07-28", "modern"}, {"http", "2026-07-28", ""}, {"sse", "2024-11-05", ""}, {"http", "2025-11-25", "probe"}, {"http", "2026-07-28", "probe-http"},
	} {
		name := "passes clean over " + over.transport + " under " + over.revision
		if over.variant != "" {
			name += " (" + over.variant + ")"
		}
		It(name, func() {
			s := testrun.Server{Protocol: id, Revision: over.revision, Transport: over.transport}
			var own time.Duration
			if over.variant != "" {
				s.Variants = []string{over.variant}
				own = b.Protocol.Variant(over.variant).RunTimeout()
			}
			rep, err := testrun.Run(s, cfg(own))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(rep.Summary.Pass).To(BeNumerically(">", 0))
			judged := map[string]string{"probe": "MCP-CLIENT-LIFECYCLE-1", "probe-http": "MCP-CLIENT-LIFECYCLE-6"}
			if r, ok := judged[over.variant]; ok {
				Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue(r, verdict.Pass), "%s", evidence(rep, r))
			}
		})
	}
	for _, rev := range b.Revisions() {
		It("passes clean under "+rev, func() {
			rep, err := testrun.Run(testrun.Server{Protocol: id, Revision: rev}, cfg(0))
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(rep.Summary.Pass).To(BeNumerically(">", 0))
		})
	}
	// Over HTTP the client-auth scenarios make wirecheck a protected
	// resource: the clean client authorizes and passes every AUTH rule of
	// the revision.
	var auth []*scenario.Scenario
	for _, sc := range b.Scenarios {
		if strings.HasPrefix(sc.Name, "client-auth") {
			auth = append(auth, sc)
		}
	}
	for _, rev := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		It("authorizes when asked over HTTP under "+rev+", passing every AUTH rule of the revision", func() {
			s := testrun.Server{Protocol: id, Revision: rev, Transport: "http"}
			if rev == "2026-07-28" {
				// A client of the revision: one that opens with initialize
				// is judged by 2025-11-25's rules.
				s.Variants = []string{"modern"}
			}
			rep, err := testrun.Run(s, runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Jobs: 4, Scenarios: auth})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			for _, r := range b.Protocol.Rules {
				// MCP-CLIENT-REG-5 asks pre-registered credentials, which the
				// clean client is not given (the preregistered variants are).
				reg := strings.HasPrefix(r.ID, "MCP-CLIENT-REG-") && r.ID != "MCP-CLIENT-REG-5"
				if (strings.HasPrefix(r.ID, "MCP-CLIENT-AUTH-") || reg) && slices.Contains(r.Versions, rev) {
					Expect(broken(rep, verdict.Pass)).To(ContainElement(r.ID))
				}
			}
		})
	}
	// Given pre-registered credentials, the client uses them where the
	// authorization server offers no other registration, whichever way it
	// authenticates.
	for _, v := range []string{"preregistered", "preregistered-post"} {
		It("authenticates as pre-registered with the variant "+v, func() {
			var pre []*scenario.Scenario
			for _, sc := range auth {
				if sc.Name == "client-auth-preregistered" {
					pre = append(pre, sc)
				}
			}
			Expect(pre).To(HaveLen(1))
			rep, err := testrun.Run(testrun.Server{Protocol: id, Revision: "2025-11-25", Transport: "http", Variants: []string{v}},
				runner.Config{Timeout: timeout, StartupTimeout: startupTimeout, Jobs: 4, Scenarios: pre})
			Expect(err).NotTo(HaveOccurred())
			Expect(broken(rep, verdict.Fail, verdict.Error)).To(BeEmpty())
			Expect(broken(rep, verdict.Pass)).To(ContainElement("MCP-CLIENT-REG-5"))
		})
	}
	// Issue 29: LIFECYCLE-3 is decided by events, not a fixed hold of the
	// initialize result. This client writes tools/list as soon as it has
	// read any line, then answers that line if it is a ping: it does not
	// wait for the initialize result. wirecheck pings it before writing
	// the result (a barrier), so its tools/list comes before its answer to
	// the ping, before the result, whatever the machine's load.
	It("fails LIFECYCLE-3 for a client that writes a request once it has read any line, not the initialize result", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		script := `d=$(mktemp -d); mkfifo "$d/in" "$d/out"
"$0" <"$d/in" >"$d/out" &
exec 3>"$d/in" 4<"$d/out"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"eager","version":"1"}}}' >&3
IFS= read -r line <&4
printf '%s\n' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >&3
case "$line" in *'"method":"ping"'*)
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" >&3;;
esac
IFS= read -r line <&4
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >&3
exec 3>&-
cat <&4 >/dev/null
rm -rf "$d"`
		var session []*scenario.Scenario
		for _, sc := range b.Scenarios {
			if sc.Name == "client-session" {
				session = append(session, sc)
			}
		}
		c := cfg(0)
		c.Scenarios = session
		rep, err := testrun.Run(testrun.Server{Protocol: id, Command: target.Target{Argv: []string{"sh", "-c", script, target.ServerCommand}, Client: true, Binary: bin}}, c)
		Expect(err).NotTo(HaveOccurred())
		Expect(testrun.Verdicts(rep)).To(HaveKeyWithValue("MCP-CLIENT-LIFECYCLE-3", verdict.Fail), "%s", evidence(rep, "MCP-CLIENT-LIFECYCLE-3"))
	})
	// A client speaks as it connects: launched for a scenario whose rules
	// do not hold in the run, its frames would be judged there or not as
	// its start went. Such a scenario launches no client: the client here
	// counts its launches.
	It("launches no client for a scenario none of whose rules holds in the run, and says why each is skipped", func() {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		log := filepath.Join(GinkgoT().TempDir(), "launches")
		client := target.Target{Argv: []string{"sh", "-c", `echo launched >>"$0"; exec "$@"`, log, bin, "serve", "mcp", "--role", "client", "--fault", "list-first", "--", target.ServerCommand}, Client: true, Binary: bin}
		rep, err := testrun.Run(testrun.Server{Protocol: id, Command: client}, cfg(0))
		Expect(err).NotTo(HaveOccurred())
		p, err := b.Protocol.ForVersion("")
		Expect(err).NotTo(HaveOccurred())
		want := 0
		for _, sc := range b.Scenarios {
			if slices.ContainsFunc(sc.Rules, func(r string) bool { return p.WhyNotApplied(p.Rule(r)) == "" }) {
				want++
			}
		}
		raw, err := os.ReadFile(log)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Count(string(raw), "launched")).To(Equal(want))
		Expect(want).To(BeNumerically("<", len(b.Scenarios)))
		for _, f := range rep.Findings {
			if f.Scenario == "client-probe-fallback" || f.Scenario == "client-mrtr" || f.Scenario == "client-schema-ref" {
				Expect(f.Verdict).To(Equal(verdict.Skip), "%s in %s: %s", f.Rule, f.Scenario, f.Message)
			}
		}
	})
})
