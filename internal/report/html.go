package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The HTML page is what a vendor hands over, so it must open anywhere,
// offline, years later: one file, inline CSS, no script, no external
// resources. Even the filters are CSS (checkboxes read through :has()), so
// the policy below can forbid every script. The Content-Security-Policy meta tag is a second line of
// defence: even if server text ever slipped past html/template's escaping,
// the browser would refuse to run or fetch anything.
//
// Every value reaching the template is a plain string that went through
// clean; html/template escapes it for its context. Nothing here is ever
// converted to template.HTML.

type htmlPage struct {
	Title, Tool, Protocol, Target, Started, Duration, Level string
	Verdict                                                 string // PASS, FAIL, INTERRUPTED or NOT STARTED
	VerdictClass                                            string // Verdict as a class name
	// Why explains the verdict: rules failed below the level, failures
	// the baseline knows.
	Why             string
	Findings, Rules Summary
	Notes           []string
	Rows            []htmlRow
	// Revisions head the verdict columns of a report of several.
	Revisions []string
	// What the report certifies (certificate.go): the server as it named
	// itself, the revision or revisions, the documents and their hashes.
	Server, Revision string
	// Certified labels Server: "Server", or "Client" for a run that
	// checked a client (Role says so).
	Certified, Role string
	Documents       []htmlDocument
	Failures        []htmlRule
}

type htmlDocument struct{ Title, Name, Ref, SHA256 string }

type htmlRow struct {
	Anchor, ID, Level, LevelClass, Verdict, VerdictLabel, Title, Source, Scenarios string
	// Badge is the verdict's badge class, or known for a failure the
	// baseline knows; Verdict stays the filter's class.
	Badge   string
	Failing bool
	// Skipped are the reasons a skipped rule gives, one line each,
	// collapsed under the title.
	Skipped []string
	// Quote is the sentence the rule tests, shown on the title's hover.
	Quote string
	// Cells are the rule's verdicts by revision, in a report of several.
	Cells []htmlCell
}

// htmlCell is one rule × revision verdict; Class is a verdict or "none".
type htmlCell struct{ Class, Label, Why string }

type htmlRule struct {
	Anchor, ID, Level, LevelClass, Title, Source, Quote string
	Findings                                            []htmlFinding
	// Known is the phrase saying that a known failure does not fail the
	// run and which baseline knows it; "" for a rule that fails the run.
	Known string
}

type htmlFinding struct {
	Verdict, VerdictLabel, Scenario, Message, Expected, Actual, Reproduce string
	// Badge is the finding's badge class: its verdict, or known.
	Badge             string
	Count             int
	TranscriptCaption string
	Transcript        []htmlEntry
	Diagram           *htmlDiagram
}

type htmlEntry struct {
	Dir, Text string
}

// WriteHTML writes a self-contained HTML page: header with the overall
// verdict, summary counts, the per-rule verdict table with its filters, and
// the evidence of every failing finding with a sequence diagram of its
// exchange. browser_test.go checks it in Chromium.
// htmlCells are a rule's matrix cells as the page shows them.
func htmlCells(cells []Cell) []htmlCell {
	out := make([]htmlCell, 0, len(cells))
	for _, c := range cells {
		class := string(c.Verdict)
		if c.None != "" {
			class = "none"
		}
		out = append(out, htmlCell{Class: class, Label: c.Label(), Why: c.Why()})
	}
	return out
}

func WriteHTML(w io.Writer, r *Report) error {
	rs := rows(r)
	word, level := outcome(r)
	page := htmlPage{
		Title:    line(fmt.Sprintf("%s conformance report: %s", orDefault(r.Tool, "wirecheck"), r.Protocol), capLine),
		Tool:     line(strings.TrimSpace(orDefault(r.Tool, "wirecheck")+" "+r.Version), capLine),
		Protocol: line(r.Protocol, capLine),
		Target:   line(r.Target, capMessage),
		Started:  started(r.Started),
		Duration: duration(r.DurationMS),
		Level:    level,
		Verdict:  word,
		// "NOT STARTED" is one class, not two.
		VerdictClass: strings.ReplaceAll(word, " ", "-"),
		Why:          strings.TrimSuffix(strings.TrimPrefix(why(r, rs), " ("), ")"),
		Findings:     findingTally(r),
		Rules:        ruleTally(rs),
	}
	for _, n := range r.Notes {
		page.Notes = append(page.Notes, block(n, capMessage))
	}
	label, who := r.Certified()
	page.Certified, page.Server = label, line(who.String(), capLine)
	if r.Role != "" {
		page.Role = r.Role
		if label == "Client" {
			page.Role += " (wirecheck played the server it talks to)"
		}
	}
	page.Revision = line(r.Revision, 32)
	if len(r.Revisions) > 0 {
		var ids []string
		for _, rev := range r.Revisions {
			ids = append(ids, rev.ID)
		}
		page.Revision = line(strings.Join(ids, ", "), capLine)
	}
	for _, d := range r.Documents {
		page.Documents = append(page.Documents, htmlDocument{Title: line(d.Title, capLine), Name: line(d.Name, capLine),
			Ref: line(orDefault(d.File, d.URL), capLine), SHA256: line(d.SHA256, 64)})
	}
	if len(r.Revisions) > 1 {
		for _, rev := range r.Revisions {
			page.Revisions = append(page.Revisions, line(rev.ID, 32))
		}
	}
	for i, row := range rs {
		anchor := fmt.Sprintf("rule-%d", i+1)
		failing := row.Failing()
		var skipped []string
		if row.Verdict == verdict.Skip {
			skipped = row.skipReasons()
		}
		badge := string(row.Verdict)
		if row.Known() {
			badge = labelKnown
		}
		page.Rows = append(page.Rows, htmlRow{
			Anchor:       anchor,
			ID:           line(row.Rule.ID, capLine),
			Level:        line(string(row.Rule.Level), 16),
			LevelClass:   levelClass(row.Rule.Level),
			Verdict:      string(row.Verdict),
			Badge:        badge,
			Skipped:      skipped,
			VerdictLabel: row.label(),
			Title:        line(row.Rule.Title, capLine),
			Source:       citation(row.Rule),
			Quote:        quote(row.Rule),
			Scenarios:    row.Scenarios(),
			Failing:      len(failing) > 0,
			Cells:        htmlCells(r.Matrix(row.RuleGroup)),
		})
		if len(failing) == 0 {
			continue
		}
		hr := htmlRule{
			Anchor:     anchor,
			ID:         line(row.Rule.ID, capLine),
			Level:      line(string(row.Rule.Level), 16),
			LevelClass: levelClass(row.Rule.Level),
			Title:      line(row.Rule.Title, capLine),
			Source:     citation(row.Rule),
			Quote:      quote(row.Rule),
		}
		if row.Known() {
			hr.Known = knownWhy(r)
		}
		for _, f := range failing {
			hf := htmlFinding{
				Verdict:      string(f.Verdict),
				Badge:        string(f.Verdict),
				VerdictLabel: verdictLabel(f.Verdict),
				Scenario:     line(f.Where(), capLine),
				Message:      block(f.Said(), capMessage),
				Expected:     block(f.Expected, capEvidence),
				Actual:       block(f.Actual, capEvidence),
				Reproduce:    line(f.Reproduce, capMessage),
				Count:        f.Count,
				Diagram:      diagram(f),
			}
			if f.Known {
				hf.Badge, hf.VerdictLabel = labelKnown, labelKnown+" "+verdictLabel(f.Verdict)
			}
			if len(f.Transcript) > 0 {
				shown, _ := tail(f.Transcript, tailDoc)
				hf.TranscriptCaption = caption(len(shown), len(f.Transcript))
				for _, e := range shown {
					hf.Transcript = append(hf.Transcript, htmlEntry{
						Dir:  line(string(e.Dir), 16),
						Text: strings.Join(entryLines([]transcript.Entry{e}, capEntryLarge), "\n"),
					})
				}
			}
			hr.Findings = append(hr.Findings, hf)
		}
		page.Failures = append(page.Failures, hr)
	}
	if err := htmlTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("report: writing HTML: %w", err)
	}
	return nil
}

// levelClass names a level for the level filter; a level this version
// does not know is never hidden.
func levelClass(l verdict.Level) string {
	if slices.Contains(verdict.Levels, l) {
		return strings.ToLower(string(l))
	}
	return "other"
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d1f21;margin:0 auto;max-width:1100px;padding:1.5em}
h1{font-size:1.5em;margin:0 0 .3em}
h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{font-size:1.05em;margin:1.4em 0 .3em}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.3em .6em;border-bottom:1px solid #eee}
th.rev,td.cell{white-space:nowrap}
.rule-id{white-space:nowrap}
blockquote.quote{margin:.3em 0 .8em;padding:.3em .8em;border-left:3px solid #8c959f;color:#444;font-style:italic}
td.cite,td.title{overflow-wrap:anywhere}
body.matrix{max-width:1340px}
body.matrix th,body.matrix td{padding:.3em .4em}
th{background:#f6f8fa}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:.5em 0}
dl.meta dt{color:#666}
dl.meta dd{margin:0;word-break:break-all}
ul.documents{margin:0;padding-left:1.2em;word-break:normal;overflow-wrap:anywhere}
.badge{display:inline-block;padding:.1em .5em;border-radius:3px;font-weight:600;font-size:.9em}
.overall{font-size:1.3em;padding:.2em .8em}
.pass{background:#dcf5e3;color:#135e2b}
.fail{background:#fde2e1;color:#8e1b14}
.skip{background:#fff4cc;color:#6b5400}
.error{background:#f1e0fa;color:#5e1b7e}
.known{background:#eaeef2;color:#57606a}
details.why{margin:.2em 0 0;color:#57606a}
details.why summary{cursor:pointer;font-size:.9em}
details.why div{font-size:.9em;padding-left:1em}
.PASS{background:#1f883d;color:#fff}
.FAIL{background:#cf222e;color:#fff}
.INTERRUPTED,.NOT-STARTED{background:#9a6700;color:#fff}
.counts span{margin-right:1.2em}
.finding{border:1px solid #ddd;border-radius:4px;padding:.6em 1em;margin:.8em 0}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:.3em 0 .8em;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.t-received{color:#0b5394}
.t-stderr{color:#a15c00}
.t-note{color:#666;font-style:italic}
.label{font-weight:600}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
footer{margin-top:2em;color:#888;font-size:.85em}
.filters{border:1px solid #ddd;border-radius:4px;margin:.5em 0 1em;padding:.3em .8em}
.filters label{margin-right:1em;white-space:nowrap}
.filters .group{display:inline-block;margin-right:1.5em}
body:has(#show-pass:not(:checked)) .v-pass,body:has(#show-fail:not(:checked)) .v-fail,
body:has(#show-skip:not(:checked)) .v-skip,body:has(#show-error:not(:checked)) .v-error,
body:has(#show-must:not(:checked)) .l-must,body:has(#show-should:not(:checked)) .l-should,
body:has(#show-may:not(:checked)) .l-may{display:none}
svg.seq{display:block;max-width:100%;height:auto;margin:.3em 0 .8em;background:#fbfcfd;border:1px solid #eee}
svg.seq text{font:11px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;fill:#1d1f21}
svg.seq .lane-title{font-weight:600;font-size:12px}
svg.seq line.lane{stroke:#8c959f;stroke-dasharray:4 3}
svg.seq .frame line{stroke:#57606a;stroke-width:1.2}
svg.seq .frame polygon{fill:#57606a}
svg.seq .f-received line{stroke:#0b5394}
svg.seq .f-received polygon{fill:#0b5394}
svg.seq .f-stderr rect{fill:#a15c00}
svg.seq .f-stderr text.label{fill:#a15c00}
svg.seq .f-note text.label{fill:#666;font-style:italic}
svg.seq text.time{fill:#888}
svg.seq .failing line{stroke:#cf222e;stroke-width:2.5}
svg.seq .failing polygon,svg.seq .failing rect{fill:#cf222e}
svg.seq .failing text.label,svg.seq text.cross{fill:#cf222e;font-weight:700}
</style>
</head>
<body{{if .Revisions}} class="matrix"{{end}}>
<header>
<h1>{{.Protocol}} conformance report</h1>
<p><span class="badge overall {{.VerdictClass}}">{{.Verdict}}</span> {{.Level}}{{if .Why}} ({{.Why}}){{end}}</p>
<dl class="meta">
{{- if .Server}}
<dt>{{.Certified}}</dt><dd class="{{if eq .Certified "Client"}}client{{else}}server{{end}}">{{.Server}}</dd>
{{- end}}
{{- if .Role}}
<dt>Role</dt><dd class="role">{{.Role}}</dd>
{{- end}}
<dt>Protocol</dt><dd>{{.Protocol}}</dd>
{{- if .Revision}}
<dt>Revision</dt><dd class="revision">{{.Revision}}</dd>
{{- end}}
<dt>Target</dt><dd><code>{{.Target}}</code></dd>
<dt>Started</dt><dd>{{.Started}}</dd>
<dt>Duration</dt><dd>{{.Duration}}</dd>
<dt>Gated</dt><dd>{{.Level}}</dd>
<dt>Tool</dt><dd>{{.Tool}}</dd>
{{- if .Documents}}
<dt>Documents</dt><dd><ul class="documents">
{{- range .Documents}}
<li><span class="doc-title">{{.Title}}</span> <span class="doc-name">({{.Name}}{{if and .Ref (ne .Ref .Name)}}, {{.Ref}}{{end}})</span>{{if .SHA256}}<br><code class="sha256">sha256 {{.SHA256}}</code>{{end}}</li>
{{- end}}
</ul></dd>
{{- end}}
</dl>
</header>

<h2>Summary</h2>
<p class="counts"><span class="label">Rules:</span>
<span class="badge pass">{{.Rules.Pass}} pass</span><span class="badge fail">{{.Rules.FailText}}</span><span class="badge skip">{{.Rules.Skip}} skip</span><span class="badge error">{{.Rules.Error}} error</span></p>
<p class="counts"><span class="label">Findings:</span>
<span class="badge pass">{{.Findings.Pass}} pass</span><span class="badge fail">{{.Findings.FailText}}</span><span class="badge skip">{{.Findings.Skip}} skip</span><span class="badge error">{{.Findings.Error}} error</span></p>
{{- if .Notes}}
<h3>Notes</h3>
<ul>
{{- range .Notes}}
<li><pre>{{.}}</pre></li>
{{- end}}
</ul>
{{- end}}

<h2>Rules</h2>
<fieldset class="filters"><legend>Show</legend>
<span class="group"><label><input type="checkbox" id="show-pass" checked> pass</label><label><input type="checkbox" id="show-fail" checked> fail</label><label><input type="checkbox" id="show-skip" checked> skip</label><label><input type="checkbox" id="show-error" checked> error</label></span>
<span class="group"><label><input type="checkbox" id="show-must" checked> MUST</label><label><input type="checkbox" id="show-should" checked> SHOULD</label><label><input type="checkbox" id="show-may" checked> MAY</label></span>
</fieldset>
<table>
<thead><tr><th>Verdict</th><th>Rule</th><th>Level</th>{{range .Revisions}}<th class="rev">{{.}}</th>{{end}}<th>Title</th><th>Citation</th>{{if not .Revisions}}<th>Scenarios</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr class="rule v-{{.Verdict}} l-{{.LevelClass}}"><td><span class="badge {{.Badge}}">{{.VerdictLabel}}</span></td><td>{{if .Failing}}<a class="rule-id" href="#{{.Anchor}}">{{.ID}}</a>{{else}}<span class="rule-id">{{.ID}}</span>{{end}}</td><td>{{.Level}}</td>{{range .Cells}}<td class="cell" title="{{.Why}}"><span class="badge {{.Class}}">{{.Label}}</span></td>{{end}}<td class="title"{{if .Quote}} title="{{.Quote}}"{{end}}>{{.Title}}{{with .Skipped}}<details class="why"><summary>why skipped</summary>{{range .}}<div>{{.}}</div>{{end}}</details>{{end}}</td><td class="cite">{{.Source}}</td>{{if not .Cells}}<td>{{.Scenarios}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- if .Failures}}

<h2>Evidence</h2>
{{- range .Failures}}
<section id="{{.Anchor}}" class="l-{{.LevelClass}}">
<h3><span class="rule-id">{{.ID}}</span> <span class="badge">{{.Level}}</span> {{.Title}}</h3>
{{- if .Source}}
<p>Citation: {{.Source}}</p>
{{- end}}
{{- if .Known}}
<p><span class="badge known">known</span> {{.Known}}</p>
{{- end}}
{{- if .Quote}}
<blockquote class="quote">{{.Quote}}</blockquote>
{{- end}}
{{- range .Findings}}
<div class="finding v-{{.Verdict}}">
<p><span class="badge {{.Badge}}">{{.VerdictLabel}}</span> scenario <code>{{.Scenario}}</code>{{if gt .Count 1}} (observed {{.Count}} times){{end}}</p>
{{- if .Message}}
<pre>{{.Message}}</pre>
{{- end}}
{{- if .Expected}}
<p class="label">Expected</p>
<pre>{{.Expected}}</pre>
{{- end}}
{{- if .Actual}}
<p class="label">Actual</p>
<pre>{{.Actual}}</pre>
{{- end}}
{{- with .Diagram}}
<p class="label">{{.Caption}}</p>
<svg class="seq" xmlns="http://www.w3.org/2000/svg" width="{{.Width}}" height="{{.Height}}" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Caption}}">
<text class="lane-title" x="{{.ClientX}}" y="16" text-anchor="middle">wirecheck (client)</text>
<text class="lane-title" x="{{.ServerX}}" y="16" text-anchor="middle">server</text>
<line class="lane lane-client" x1="{{.ClientX}}" y1="24" x2="{{.ClientX}}" y2="{{.LaneBottom}}"/>
<line class="lane lane-server" x1="{{.ServerX}}" y1="24" x2="{{.ServerX}}" y2="{{.LaneBottom}}"/>
{{- range .Frames}}
<g class="frame f-{{.Dir}}{{if .Failing}} failing{{end}}">
<text class="time" x="6" y="{{.Y}}">{{.Time}}</text>
{{- if .Arrow}}
<line x1="{{.X1}}" y1="{{.Y}}" x2="{{.X2}}" y2="{{.Y}}"/><polygon points="{{.Head}}"/>
{{- end}}
{{- if .Mark}}
<rect x="{{.X1}}" y="{{.TextY}}" width="12" height="6" transform="translate(0,-9)"/>
{{- end}}
<text class="label" x="{{.LabelX}}" y="{{.TextY}}" text-anchor="{{.Anchor}}">{{.Label}}</text>
{{- if .Failing}}
<text class="cross{{if .Unanswered}} unanswered{{end}}" x="{{.CrossX}}" y="{{.Y}}" dy="{{.CrossDY}}" text-anchor="{{.CrossAnchor}}">{{.Cross}}</text>
{{- end}}
</g>
{{- end}}
</svg>
{{- end}}
{{- if .Transcript}}
<p class="label">{{.TranscriptCaption}}</p>
<pre>
{{- range .Transcript}}
<span class="t-{{.Dir}}">{{.Text}}</span>
{{- end}}
</pre>
{{- end}}
{{- if .Reproduce}}
<p class="label">Reproduce</p>
<pre>{{.Reproduce}}</pre>
{{- end}}
</div>
{{- end}}
</section>
{{- end}}
{{- end}}

<footer>Generated by {{.Tool}}.</footer>
</body>
</html>
`))
