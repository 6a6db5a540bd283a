package main

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	refmcp "github.com/wirecheck/wirecheck/internal/refserver/mcp"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func faultOf(id, name string) (*spec.Protocol, *spec.Fault) {
	b, err := protocols.Load(id)
	Expect(err).NotTo(HaveOccurred())
	f := b.Protocol.Fault(name)
	Expect(f).NotTo(BeNil(), "%s has no fault %s", id, name)
	return b.Protocol, f
}

var _ = Describe("how a fault is launched", func() {
	demo := []string{"Authorization: Bearer " + refmcp.DemoToken()}

	It("runs a fault declared for a transport over it, with the token a profile's reference server asks", func() {
		p, f := faultOf("sophon", "auth-plain-401")
		ls := launches(p, f)
		Expect(ls).To(Equal([]launch{{Transport: "sse", Headers: demo}}))
		t := serverTarget("wc", p, f.Name, ls[0])
		Expect(t.Argv).To(Equal([]string{"wc", "serve", "sophon", "--fault", "auth-plain-401", "--sse", "127.0.0.1:{port}"}))
		Expect(t.Transport).To(Equal("sse"))
		Expect(t.Headers).To(Equal(demo))
	})

	It("runs a fault of no transport over the protocol's first, with no headers over stdio", func() {
		p, f := faultOf("sophon", "search-fails")
		ls := launches(p, f)
		Expect(ls).To(Equal([]launch{{Transport: "stdio"}}))
		t := serverTarget("wc", p, f.Name, ls[0])
		Expect(t.Argv).To(Equal([]string{"wc", "serve", "sophon", "--fault", "search-fails"}))
		Expect(t.Headers).To(BeEmpty())
	})

	It("runs a protocol reached over HTTP only over HTTP, its clean run too, both with the token", func() {
		p, f := faultOf("sonde-hub", "json-as-text")
		ls := launches(p, f)
		Expect(ls).To(Equal([]launch{{Transport: "http", Headers: demo}}))
		Expect(ls[0].clean(p)).To(Equal(launch{Transport: "http", Headers: demo}))
		Expect(serverTarget("wc", p, "", ls[0].clean(p)).Argv).To(Equal([]string{"wc", "serve", "sonde-hub", "--http", "127.0.0.1:{port}"}))
	})

	It("runs a fault under the revision it declares, and compares it with a clean run under that revision", func() {
		p, f := faultOf("mcp", "elicit-undeclared")
		ls := launches(p, f)
		Expect(ls).To(Equal([]launch{{Transport: "stdio", Revision: "2025-03-26"}}))
		Expect(ls[0].clean(p).key()).To(Equal("stdio@2025-03-26"))
	})

	It("gives the MCP reference token only to runs of the faults that switch its authorization on, never to their clean runs", func() {
		p, f := faultOf("mcp", "auth-no-token-403")
		ls := launches(p, f)
		Expect(ls).To(HaveLen(1))
		Expect(ls[0].Headers).To(Equal([]string{"Authorization: Bearer " + refmcp.Token}))
		Expect(ls[0].clean(p).Headers).To(BeEmpty())
		p, f = faultOf("mcp", "body-two-objects")
		Expect(launches(p, f)).To(Equal([]launch{{Transport: "http"}}))
	})

	It("runs a fault of no transport whose rules hold only over HTTP over each transport where they hold", func() {
		p, f := faultOf("mcp", "sse-data-not-json")
		Expect(launches(p, f)).To(Equal([]launch{{Transport: "http"}, {Transport: "sse"}}))
	})
})

var _ = Describe("the bounds a run waited out", func() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	obs := func(scenario, msg string) verdict.Observation {
		return verdict.Observation{Rule: "R", Verdict: verdict.Fail, Scenario: scenario, Message: msg}
	}

	It("reads the time a wait lasted from its message: the bound, or the lengthened time it actually took", func() {
		w, ok := waitOf(obs("tools", "no response to tools/call (id 3) within 5s (--timeout); the server is still running"), at(9*time.Second))
		Expect(ok).To(BeTrue())
		Expect(w).To(Equal(wait{Scenario: "tools", End: at(9 * time.Second), Took: 5 * time.Second}))
		w, ok = waitOf(obs("init", "no response to initialize within 7.25s (5s (--timeout), lengthened as the server had written nothing yet: a process still starting gets up to --startup-timeout more)"), at(8*time.Second))
		Expect(ok).To(BeTrue())
		Expect(w.Took).To(Equal(7250 * time.Millisecond))
		w, ok = waitOf(obs("turn", "session.send for killed session \"s1\" got no answer within 1m0s"), at(time.Minute))
		Expect(ok).To(BeTrue())
		Expect(w.Took).To(Equal(time.Minute))
		w, ok = waitOf(obs("eof", "the server was still running 10s after stdin closed"), at(time.Minute))
		Expect(ok).To(BeTrue())
		Expect(w.Took).To(Equal(10 * time.Second))
	})

	It("does not count a wait ended at once for a cause learned earlier, nor a message that names no wait", func() {
		_, ok := waitOf(obs("tools", "not waited for the response to tools/call (id 9): tools/call (id 3) in scenario tools got no response within 5s (--timeout)"), t0)
		Expect(ok).To(BeFalse())
		_, ok = waitOf(obs("tools", "the result's content is not an array"), t0)
		Expect(ok).To(BeFalse())
		_, ok = waitOf(obs("rate", "61 requests of one token within 8ms, none refused -32004"), t0)
		Expect(ok).To(BeFalse())
	})

	It("does not count a bound a message quotes but the run did not wait out, and cuts a wait to the run", func() {
		start := at(0)
		quoted := wait{Scenario: "(run)", End: at(42 * time.Millisecond), Took: 5 * time.Second}
		lengthened := wait{Scenario: "init", End: at(4 * time.Second), Took: 5 * time.Second}
		whole := wait{Scenario: "tools", End: at(9 * time.Second), Took: 5 * time.Second}
		Expect(inRun([]wait{quoted, lengthened, whole}, start)).To(Equal([]wait{
			{Scenario: "init", End: at(4 * time.Second), Took: 4 * time.Second}, whole}))
	})

	It("counts one wait reported against several checks once", func() {
		msg := "no response to ping within 5s (--timeout)"
		var r recorder
		r.now = func() time.Time { return at(5 * time.Second) }
		r.Observed(obs("ping", msg))
		r.now = func() time.Time { return at(5*time.Second + time.Millisecond) }
		r.Observed(obs("ping", msg))
		r.Observed(verdict.Observation{Rule: "P", Verdict: verdict.Pass, Scenario: "ping"})
		Expect(r.waits).To(HaveLen(2))
		Expect(distinct(r.waits)).To(HaveLen(1))
	})

	It("counts waits of lanes at once as one bound of wall time, waits one after the other as one each", func() {
		five := 5 * time.Second
		parallel := []wait{{Scenario: "a", End: at(6 * time.Second), Took: five}, {Scenario: "b", End: at(6500 * time.Millisecond), Took: five}}
		total, series := spent(parallel)
		Expect(total).To(Equal(5500 * time.Millisecond))
		Expect(series).To(Equal(1))
		serial := []wait{{Scenario: "a", End: at(6 * time.Second), Took: five}, {Scenario: "a", End: at(12 * time.Second), Took: five}}
		total, series = spent(serial)
		Expect(total).To(Equal(10 * time.Second))
		Expect(series).To(Equal(2))
		// Two waits back to back behind one long wait of another lane:
		// the stretch holds two of its longest.
		chained := []wait{{Scenario: "a", End: at(5 * time.Second), Took: five}, {Scenario: "a", End: at(10 * time.Second), Took: five},
			{Scenario: "b", End: at(9 * time.Second), Took: 8 * time.Second}}
		_, series = spent(chained)
		Expect(series).To(Equal(2))
	})
})

var _ = Describe("the goal's flags", func() {
	clean := 300 * time.Millisecond
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	five := 5 * time.Second

	It("does not flag a fault whose only cost is the one bound its silence takes, though its raw ratio is far over 2x", func() {
		r := newResult("p", "silent", "stdio", 5300*time.Millisecond, clean, []wait{{Scenario: "s", End: t0, Took: five}})
		Expect(r.ratio()).To(BeNumerically(">", 17))
		Expect(r.bounds).To(Equal(1))
		Expect(r.beyond()).To(BeNumerically("~", 1.0, 0.01))
		Expect(r.flags()).To(BeEmpty())
		Expect(verdictOf([]result{r})).To(ContainSubstring("MET, 0 of 1 run(s) over; the raw worst, 17.7x, is over 2x"))
	})

	It("flags a fault that waits out a second bound in series", func() {
		r := newResult("p", "twice", "stdio", 10300*time.Millisecond, clean, []wait{{Scenario: "s", End: t0, Took: five}, {Scenario: "s", End: t0.Add(five), Took: five}})
		Expect(r.flags()).To(Equal("OVER 1 bound (2 in series)"))
		Expect(verdictOf([]result{r})).To(ContainSubstring("MISSED, 1 of 1 run(s) over"))
	})

	It("flags a fault that costs over twice the clean run beyond its bounds, and one over two minutes", func() {
		r := newResult("p", "slow", "http", 5900*time.Millisecond, clean, []wait{{Scenario: "s", End: t0, Took: five}})
		Expect(r.flags()).To(Equal("OVER 2x beyond its bounds"))
		r = newResult("p", "long", "stdio", 121*time.Second, 100*time.Second, nil)
		Expect(r.flags()).To(Equal("OVER 2m0s"))
	})

	It("marks a run that did not trip the rules its fault trips, apart from the goal", func() {
		_, f := faultOf("sophon", "auth-open")
		rep := &report.Report{Findings: []report.Finding{{Rule: "SOPHON-AUTH-1", Verdict: verdict.Skip}}}
		Expect(tripped(rep, f)).To(BeFalse())
		rep.Findings = append(rep.Findings, report.Finding{Rule: "SOPHON-AUTH-2", Verdict: verdict.Fail})
		Expect(tripped(rep, f)).To(BeTrue())
		r := newResult("sophon", f.Name, "stdio", clean, clean, nil)
		r.untripped = true
		Expect(r.flags()).To(Equal("NOT TRIPPED (the fault did not show)"))
		Expect(verdictOf([]result{r})).To(ContainSubstring("MET, 0 of 1 run(s) over"))
		Expect(verdictOf([]result{r})).To(HaveSuffix("1 run(s) did not trip their fault's rules"))
	})
})
