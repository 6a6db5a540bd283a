package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/testbrowser"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The HTML report opened in a real browser, Debian's chromium (installed by
// .ci/run), driven over the DevTools protocol. One browser serves every
// check; each page opens in a tab of its own.

// pageRun is what a tab saw while a page loaded and was used: console
// errors, uncaught exceptions, log errors (a CSP violation is one) and
// every request beyond the page itself.
type pageRun struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

func (p *pageRun) add(list *[]string, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*list = append(*list, s)
}

func (p *pageRun) seen() (errs, reqs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...), append([]string(nil), p.requests...)
}

// browserTab is one page of the shared browser.
type browserTab struct {
	ctx context.Context
	run *pageRun
}

// Eval runs the expression js in the page and decodes its value into out.
func (t browserTab) Eval(js string, out any) {
	GinkgoHelper()
	v, err := chromedp.Run(t.ctx, chromedp.Evaluate[string]("JSON.stringify(("+js+"))"))
	Expect(err).NotTo(HaveOccurred(), js)
	Expect(json.Unmarshal([]byte(v), out)).To(Succeed(), js)
}

var _ = Describe("the HTML report in a browser", Ordered, func() {
	var browser context.Context

	BeforeAll(func() {
		browser = testbrowser.Start("the HTML report's browser checks")
	})

	// open writes page to a file and loads it in a new tab.
	open := func(page string) browserTab {
		GinkgoHelper()
		file := filepath.Join(GinkgoT().TempDir(), "report.html")
		Expect(os.WriteFile(file, []byte(page), 0o644)).To(Succeed())
		url := "file://" + file
		tab, closeTab := chromedp.NewContext(browser)
		DeferCleanup(closeTab)
		run := &pageRun{}
		// Listening opens the tab, before anything loads in it.
		Expect(chromedp.Listen(tab, func(ev any) {
			switch e := ev.(type) {
			case *runtime.EventConsoleAPICalled:
				if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
					run.add(&run.errors, fmt.Sprintf("console.%s", e.Type))
				}
			case *runtime.EventExceptionThrown:
				run.add(&run.errors, "exception: "+e.ExceptionDetails.Text)
			case *cdplog.EventEntryAdded:
				if e.Entry.Level == cdplog.EntryLevelError {
					run.add(&run.errors, "log: "+e.Entry.Text)
				}
			case *network.EventRequestWillBeSent:
				if e.Request.URL != url {
					run.add(&run.requests, e.Request.URL)
				}
			}
		})).To(Succeed())
		// A generous bound for a loaded machine; nothing here is timed.
		ctx, cancel := context.WithTimeout(tab, 2*time.Minute)
		DeferCleanup(cancel)
		Expect(chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))).To(Succeed())
		return browserTab{ctx: ctx, run: run}
	}

	It("has checks that see a script run, a console error and a fetch", func() {
		// Without this, the checks below could pass by seeing nothing.
		tab := open(`<!DOCTYPE html><title>control</title><script>document.title="ran";window.__pwned="control";console.error("boom")</script>` +
			`<img src="http://127.0.0.1:9/x.png"><footer></footer>`)
		var title, pwned string
		tab.Eval(`document.title`, &title)
		tab.Eval(`String(window.__pwned)`, &pwned)
		Expect([]string{title, pwned}).To(Equal([]string{"ran", "control"}))
		Eventually(func() []string { errs, _ := tab.run.seen(); return errs }).WithTimeout(time.Minute).Should(ContainElement("console.error"))
		Eventually(func() []string { _, reqs := tab.run.seen(); return reqs }).WithTimeout(time.Minute).Should(ContainElement("http://127.0.0.1:9/x.png"))
	})

	It("renders the report with no console error and no request", func() {
		tab := open(htmlOf(tallied()))
		var h1 string
		var rows, sections int
		tab.Eval(`document.querySelector("h1").innerText`, &h1)
		tab.Eval(`document.querySelectorAll("tr.rule").length`, &rows)
		tab.Eval(`document.querySelectorAll("section .finding").length`, &sections)
		Expect(h1).To(Equal("sonde-serve conformance report"))
		Expect([]int{rows, sections}).To(Equal([]int{6, 3}))
		errs, reqs := tab.run.seen()
		Expect(errs).To(BeEmpty())
		Expect(reqs).To(BeEmpty(), "the page is self-contained")
	})

	Describe("with server text that tries to run", func() {
		// Each payload would set window.__pwned (and most the title) if it
		// ever ran: a script element, event handlers, javascript: URLs, a
		// way out of <style>, <title> and the diagram's SVG, and terminal
		// escapes.
		payloads := []string{
			`<script>document.title="pwned";window.__pwned="script"</script>`,
			`"><img src=x onerror="document.title='pwned';window.__pwned='img'">`,
			`javascript:window.__pwned='url'`,
			`<a href="javascript:window.__pwned='link'">click me</a>`,
			`</style><script>window.__pwned="style"</script>`,
			`</title><script>window.__pwned="title"</script>`,
			`</text></svg><svg onload="window.__pwned='svg'"><script>window.__pwned="svg-script"</script>`,
			`<meta http-equiv="refresh" content="0;url=javascript:window.__pwned='meta'">`,
			"\x1b]0;pwned\x07\x1b[2J\x1b]8;;javascript:window.__pwned='osc8'\x07link\x1b]8;;\x07",
		}
		hostile := strings.Join(payloads, " ")
		hostileReport := func() *report.Report {
			r := tallied()
			r.Tool, r.Protocol, r.Target = hostile, hostile, hostile
			r.Notes = append(r.Notes, hostile)
			for i := range r.Rules {
				r.Rules[i].Title, r.Rules[i].Source = hostile, hostile
			}
			for i := range r.Findings {
				f := &r.Findings[i]
				f.Message, f.Expected, f.Actual, f.Reproduce = hostile, hostile, hostile, hostile
				f.Transcript = append(f.Transcript, transcript.Entry{Dir: transcript.Received, Text: hostile},
					transcript.Entry{Dir: transcript.Stderr, Text: hostile})
			}
			return r
		}

		// expectInert checks that nothing ran and that the page holds no
		// active markup of the server's, then follows every link and
		// checks again.
		expectInert := func(tab browserTab) {
			GinkgoHelper()
			var pwned, title, text string
			var scripts, handlers, foreignLinks, media, svgs, ownSVGs int
			tab.Eval(`String(window.__pwned)`, &pwned)
			tab.Eval(`document.title`, &title)
			tab.Eval(`document.body.innerText`, &text)
			tab.Eval(`document.scripts.length`, &scripts)
			tab.Eval(`[...document.querySelectorAll("*")].filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).length`, &handlers)
			tab.Eval(`[...document.querySelectorAll("[href],[src],[action],[formaction],[xlink\\:href]")].filter(e => !(e.getAttribute("href") || "").startsWith("#")).length`, &foreignLinks)
			tab.Eval(`document.querySelectorAll("img,iframe,object,embed,meta[http-equiv=refresh],link,base,form").length`, &media)
			tab.Eval(`document.querySelectorAll("svg").length`, &svgs)
			tab.Eval(`document.querySelectorAll("svg.seq").length`, &ownSVGs)
			Expect(pwned).To(Equal("undefined"))
			Expect(title).NotTo(HavePrefix("pwned"))
			Expect(text).To(ContainSubstring(`<script>document.title="pwned";window.__pwned="script"</script>`), "the payload is on the page, as text")
			Expect(text).To(ContainSubstring(`\x1b]0;pwned\x07`), "terminal escapes are shown, not sent")
			Expect([]int{scripts, handlers, foreignLinks, media}).To(Equal([]int{0, 0, 0, 0}))
			Expect(svgs).To(Equal(ownSVGs))
			Expect(ownSVGs).To(Equal(3))

			var links int
			tab.Eval(`(() => { const as = [...document.querySelectorAll("a")]; as.forEach(a => a.click()); return as.length })()`, &links)
			Expect(links).To(BeNumerically(">", 0))
			tab.Eval(`String(window.__pwned)`, &pwned)
			Expect(pwned).To(Equal("undefined"))
			errs, reqs := tab.run.seen()
			Expect(errs).To(BeEmpty(), "a blocked script would be a CSP error here")
			Expect(reqs).To(BeEmpty())
		}

		It("runs none of it", func() {
			expectInert(open(htmlOf(hostileReport())))
		})

		It("runs none of it even without the Content-Security-Policy", func() {
			// The policy is the second line of defence; the escaping must
			// hold on its own.
			page := htmlOf(hostileReport())
			csp := regexpCSP.FindString(page)
			Expect(csp).NotTo(BeEmpty())
			expectInert(open(strings.Replace(page, csp, "", 1)))
		})
	})

	It("filters the rules and evidence by verdict and level", func() {
		tab := open(htmlOf(tallied()))
		visible := func(selector string) int {
			GinkgoHelper()
			var n int
			tab.Eval(fmt.Sprintf(`[...document.querySelectorAll(%q)].filter(e => e.getClientRects().length > 0).length`, selector), &n)
			return n
		}
		click := func(id string) {
			GinkgoHelper()
			Expect(chromedp.Do(tab.ctx, chromedp.Click(chromedp.CSS(id)))).To(Succeed())
		}
		// The fixture's rules: pass MUST, fail MUST, fail SHOULD, error
		// MUST, skip MAY, pass SHOULD; three failing findings.
		Expect([]int{visible("tr.rule"), visible(".finding")}).To(Equal([]int{6, 3}))
		click("#show-pass")
		Expect(visible("tr.rule")).To(Equal(4))
		click("#show-must")
		Expect(visible("tr.rule")).To(Equal(2), "fail SHOULD and skip MAY are left")
		Expect(visible(".finding")).To(Equal(1), "only the SHOULD failure's evidence")
		click("#show-pass")
		Expect(visible("tr.rule")).To(Equal(3), "pass SHOULD is back")
		click("#show-fail")
		Expect([]int{visible("tr.rule"), visible(".finding")}).To(Equal([]int{2, 0}))
		click("#show-must")
		click("#show-fail")
		Expect([]int{visible("tr.rule"), visible(".finding")}).To(Equal([]int{6, 3}))
		errs, _ := tab.run.seen()
		Expect(errs).To(BeEmpty())
	})

	It("fits a 1400-px window, a run over every revision too, with every rule ID on one line", func() {
		for _, r := range []*report.Report{tallied(), matrixReport()} {
			tab := open(htmlOf(r))
			Expect(chromedp.Do(tab.ctx, chromedp.EmulateViewport(1400, 900))).To(Succeed())
			var overflowing []string
			tab.Eval(`[...document.querySelectorAll("body *")].filter(e => {
				const b = e.getBoundingClientRect();
				return b.width > 0 && (b.right > window.innerWidth + 0.5 || b.left < -0.5);
			}).map(e => e.tagName + "." + (e.getAttribute("class") || "") + ": " + (e.textContent || "").slice(0, 60))`, &overflowing)
			Expect(overflowing).To(BeEmpty())
			var scroll, width int
			tab.Eval(`document.documentElement.scrollWidth`, &scroll)
			tab.Eval(`window.innerWidth`, &width)
			Expect(scroll).To(BeNumerically("<=", width), "no horizontal scroll bar")
			// A rule ID's lines: the distinct tops of its text's boxes
			// (one per line it wraps onto), in the table and in the
			// evidence's headings.
			type idLines struct {
				ID    string
				Lines int
			}
			var ids []idLines
			tab.Eval(`[...document.querySelectorAll("tr.rule td:nth-child(2), section h3 .rule-id")].map(e => {
				const r = document.createRange(); r.selectNodeContents(e);
				return {ID: e.textContent, Lines: new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top))).size};
			})`, &ids)
			Expect(len(ids)).To(BeNumerically(">=", len(r.Rules)), "every row's rule ID")
			for _, id := range ids {
				Expect(id.Lines).To(Equal(1), "%s is on one line", id.ID)
			}
		}
	})

	It("draws each failure's exchange with the failing frame marked", func() {
		tab := open(htmlOf(tallied()))
		type lane struct{ Client, Server, Failing, Frames int }
		var lanes []lane
		tab.Eval(`[...document.querySelectorAll(".finding")].map(f => {
			const s = f.querySelector("svg.seq");
			if (!s || s.getBoundingClientRect().height < 50) return {};
			return {Client: s.querySelectorAll(".lane-client").length, Server: s.querySelectorAll(".lane-server").length,
				Failing: s.querySelectorAll("g.failing").length, Frames: s.querySelectorAll("g.frame").length};
		})`, &lanes)
		Expect(lanes).To(Equal([]lane{{1, 1, 1, 19}, {1, 1, 1, 3}, {1, 1, 1, 3}}))

		type mark struct{ Dir, Label, Stroke string }
		var marks []mark
		tab.Eval(`[...document.querySelectorAll("svg.seq g.failing")].map(g => ({
			Dir: [...g.classList].find(c => c.startsWith("f-")),
			Label: g.querySelector("text.label").textContent,
			Stroke: getComputedStyle(g.querySelector("line, rect")).getPropertyValue(g.querySelector("line") ? "stroke" : "fill")}))`, &marks)
		Expect(marks).To(HaveLen(3))
		// The frame Actual quotes ({"id": 7}), the hostile line Actual
		// quotes, and the panic on stderr before the crash.
		Expect(marks[0]).To(Equal(mark{"f-received", `{"id":7,"result":{}}`, "rgb(207, 34, 46)"}))
		Expect(marks[1].Dir).To(Equal("f-received"))
		Expect(marks[1].Label).To(HavePrefix(`{"id":3,"result":"\x1b[2J`))
		Expect(marks[2].Dir).To(Equal("f-stderr"))
		Expect(marks[2].Label).To(HavePrefix("stderr: panic: runtime error"))
		Expect(marks[2].Stroke).To(Equal("rgb(207, 34, 46)"))
	})
})

// matrixReport is a run over five revisions with rule IDs, titles and
// citations as long as MCP's.
func matrixReport() *report.Report {
	revs := []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	r := &report.Report{Tool: "wirecheck", Version: "v1.2.3", Protocol: "mcp", Target: "node ./dist/server.js --stdio", Level: verdict.Must}
	for _, id := range revs {
		r.Revisions = append(r.Revisions, report.Revision{ID: id, Negotiated: id, Judged: true})
	}
	for i, id := range []string{"MCP-HTTP-DISCONNECT-1", "MCP-LIFECYCLE-VERSION-NEGOTIATE-12", "JSONRPC-ID-1"} {
		r.Rules = append(r.Rules, verdict.Rule{ID: id, Level: verdict.Must,
			Title:    `after notifications/tools|prompts|resources/list_changed, prompts/get of a listed prompt, given its required arguments (the first completion the server offers, else an absolute URI for an argument its declaration calls a URI or URL, "1" for any other), answers a result`,
			Source:   "MCP 2025-11-25 § basic/authorization#protected-resource-metadata-discovery-requirements",
			Quote:    "Servers MUST respond with an error if the client requests a protocol version the server does not support.",
			Document: "the MCP specification, revision 2025-11-25"})
		for j, rev := range revs {
			v := verdict.Pass
			if (i+j)%3 == 0 {
				v = verdict.Fail
			}
			r.Findings = append(r.Findings, report.Finding{Rule: id, Level: verdict.Must, Verdict: v, Scenario: "initialize-with-an-unsupported-version", Revision: rev,
				Message: "the server answered", Actual: `{"jsonrpc":"2.0","id":1,"result":{}}`,
				Transcript: []transcript.Entry{{Seq: 1, Dir: transcript.Sent, Text: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`}, {Seq: 2, Dir: transcript.Received, Text: `{"jsonrpc":"2.0","id":1,"result":{}}`}},
				Frames:     []int{2}})
		}
	}
	r.Tally()
	return r
}
