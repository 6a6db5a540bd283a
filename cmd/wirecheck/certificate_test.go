package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/testbrowser"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The HTML certificate a vendor hands over, from a real run against a
// faulty reference server, opened in headless Chromium (installed by
// .ci/run): it names the server as it named itself, the revision, the
// documents and their hashes, quotes every failing rule's sentence, and
// marks the frames each failure is about.

// certificate runs args with a JSON and an HTML report and returns the
// exit code, the JSON report and the HTML file.
func certificate(args ...string) (int, *report.Report, string) {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	js, page := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
	full := append([]string{"run", "--report", "json=" + js, "--report", "html=" + page}, args...)
	code, out, errs := cli("", full...)
	data, err := os.ReadFile(js)
	Expect(err).NotTo(HaveOccurred(), out+errs)
	var rep report.Report
	Expect(json.Unmarshal(data, &rep)).To(Succeed())
	return code, &rep, page
}

var _ = Describe("the HTML certificate in Chromium", Ordered, func() {
	var browser context.Context

	BeforeAll(func() {
		browser = testbrowser.Start("the certificate's browser check")
	})

	// open loads file in a tab of its own and returns eval, which runs a
	// JavaScript expression there and decodes its value into out.
	open := func(file string) func(js string, out any) {
		GinkgoHelper()
		tab, closeTab := chromedp.NewContext(browser)
		DeferCleanup(closeTab)
		ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
		DeferCleanup(cancel)
		Expect(chromedp.Do(ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate("file://"+file), chromedp.WaitReady(chromedp.CSS("footer")))).To(Succeed())
		return func(js string, out any) {
			GinkgoHelper()
			v, err := chromedp.Run(ctx, chromedp.Evaluate[string]("JSON.stringify(("+js+"))"))
			Expect(err).NotTo(HaveOccurred(), js)
			Expect(json.Unmarshal([]byte(v), out)).To(Succeed(), js)
		}
	}

	// marked is, per failing finding on the page, in order, the labels of
	// the frames its diagram marks.
	const marked = `[...document.querySelectorAll(".finding")].map(f =>
		[...f.querySelectorAll("svg.seq g.failing text.label")].map(t => t.textContent))`

	It("names the server, the revision and the documents, quotes the rule, and marks the replies with the wrong id", func() {
		code, rep, page := certificate("--protocol", "mcp", "--rules", "MCP-JSONRPC-2", "--", bin(), "serve", "mcp", "--fault", "id-type")
		Expect(code).To(Equal(1))
		// The JSON header says the same.
		Expect(rep.Server).To(Equal(&report.Server{Name: "wirecheck-reference", Version: "1.0.0"}))
		Expect(rep.Revision).To(Equal("2025-06-18"))
		Expect(rep.Version).NotTo(BeEmpty())
		Expect(rep.Documents).To(ContainElement(report.Document{Name: "MCP 2025-06-18", Title: "the MCP specification, revision 2025-06-18",
			File: "shared/reference/mcp/2025-06-18/", SHA256: "c12dacb9e304164b46a1f930bb6a9e3ce671858b79250c2dfd6a9687162282b4"}))
		Expect(rep.Documents).To(HaveLen(1), "the documents the report's one rule cites, no more")
		_, rules, _ := cli("", "rules", "--protocol", "mcp", "--format", "json")
		var catalogue []struct{ ID, Quote string }
		Expect(json.Unmarshal([]byte(rules), &catalogue)).To(Succeed())
		var quote string
		for _, r := range catalogue {
			if r.ID == "MCP-JSONRPC-2" {
				quote = strings.Join(strings.Fields(r.Quote), " ")
			}
		}
		Expect(quote).NotTo(BeEmpty())

		eval := open(page)
		var server, revision, gated, cite, said string
		var hashes []string
		eval(`document.querySelector(".server").textContent`, &server)
		eval(`document.querySelector(".revision").textContent`, &revision)
		eval(`[...document.querySelectorAll("dt")].find(d => d.textContent == "Gated").nextElementSibling.textContent`, &gated)
		eval(`[...document.querySelectorAll("code.sha256")].map(c => c.textContent)`, &hashes)
		eval(`[...document.querySelectorAll("section p")].find(p => p.textContent.startsWith("Citation:")).textContent`, &cite)
		eval(`document.querySelector("section blockquote.quote").textContent`, &said)
		Expect(server).To(Equal("wirecheck-reference 1.0.0"))
		Expect(revision).To(Equal("2025-06-18"))
		Expect(gated).To(Equal("at level MUST"))
		Expect(hashes).To(ContainElement("sha256 c12dacb9e304164b46a1f930bb6a9e3ce671858b79250c2dfd6a9687162282b4"))
		Expect(cite).To(HavePrefix("Citation: the "))
		Expect(cite).To(ContainSubstring(", § "))
		Expect(said).To(Equal("“" + quote + "”"))

		// Each failure marks the frames its JSON finding names, and each
		// of those is a reply whose id is not the request's.
		var marks [][]string
		eval(marked, &marks)
		n := 0
		for _, f := range rep.Findings {
			if f.Verdict != "fail" {
				continue
			}
			n++
			var want []string
			for _, e := range f.Transcript {
				for _, s := range f.Frames {
					if e.Seq == s {
						Expect(string(e.Dir)).To(Equal("received"))
						Expect(e.Text).To(MatchRegexp(`"id":"(7|[^"]*-x)"`), "a frame with the wrong id")
						want = append(want, e.Text)
					}
				}
			}
			Expect(want).NotTo(BeEmpty(), "finding in %s names frames of its excerpt", f.Scenario)
			Expect(len(marks)).To(BeNumerically(">=", n))
			Expect(marks[n-1]).To(Equal(want), f.Scenario)
		}
		Expect(n).To(BeNumerically(">", 0))
		Expect(marks).To(HaveLen(n))
	})

	It("shows a request that got no answer as such", func() {
		code, rep, page := certificate("--protocol", "sonde-serve", "--rules", "SONDE-ONE-RESPONSE-1", "--timeout", "300ms", "--",
			bin(), "serve", "sonde-serve", "--fault", "drop-call")
		Expect(code).To(Equal(1))
		Expect(rep.Server).To(Equal(&report.Server{Version: "1.0.0"}), "the ready line's apiVersion")
		eval := open(page)
		var server string
		eval(`document.querySelector(".server").textContent`, &server)
		Expect(server).To(Equal("1.0.0"))
		type mark struct {
			Dir, Label, Cross string
			Inside            bool
		}
		var marks []mark
		eval(`[...document.querySelectorAll("svg.seq g.failing")].map(g => {
			const c = g.querySelector("text.cross"), s = g.ownerSVGElement.getBoundingClientRect(), b = c.getBoundingClientRect();
			return {Dir: [...g.classList].find(c => c.startsWith("f-")), Label: g.querySelector("text.label").textContent,
				Cross: c.textContent, Inside: b.left >= s.left && b.right <= s.right};
		})`, &marks)
		Expect(marks).NotTo(BeEmpty())
		unanswered := 0
		for _, m := range marks {
			if m.Cross == "✗ no answer within 300ms" {
				unanswered++
				Expect(m.Dir).To(Equal("f-sent"))
				Expect(m.Label).To(ContainSubstring(`"method":"tools/call"`))
			}
			Expect(m.Inside).To(BeTrue(), "%q is drawn inside the diagram", m.Cross)
		}
		Expect(unanswered).To(BeNumerically(">=", 2), "%v", marks)
	})

	It("says why each skipped rule was skipped, collapsed under its title", func() {
		code, rep, page := certificate("--protocol", "mcp", "--rules", "MCP-SESSION-*", "--", bin(), "serve", "mcp")
		Expect(code).To(Equal(0))
		want := map[string]string{}
		for _, f := range rep.Findings {
			if f.Verdict == verdict.Skip && f.Message != "" {
				want[f.Rule] = f.Message
			}
		}
		Expect(want).NotTo(BeEmpty(), "the session rules are HTTP's: over stdio each is skipped with a reason")
		eval := open(page)
		var shown []struct {
			ID, Why string
			Open    bool
		}
		eval(`[...document.querySelectorAll("tr.rule details.why")].map(d => ({
			ID: d.closest("tr").querySelector(".rule-id").textContent,
			Why: [...d.querySelectorAll("div")].map(x => x.textContent).join(" | "),
			Open: d.open}))`, &shown)
		got := map[string]string{}
		for _, s := range shown {
			Expect(s.Open).To(BeFalse(), "%s: collapsed until opened", s.ID)
			got[s.ID] = s.Why
		}
		for id, why := range want {
			Expect(got).To(HaveKey(id))
			Expect(got[id]).To(ContainSubstring(why), id)
		}
	})
})
