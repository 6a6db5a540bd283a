package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown (a PR comment,
// a job summary): the overall verdict, summary counts, the verdict table,
// then the evidence of every failing finding in fenced blocks.
//
// Renderers of Markdown also render inline HTML, so server text is escaped
// as carefully as in the HTML report: outside fences, '<' and '>' become
// entities and Markdown punctuation is backslash-escaped; inside fences
// nothing is interpreted, provided the fence is longer than any backtick run
// in the content.
func WriteMarkdown(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	rs := rows(r)
	word, level := outcome(r)

	fmt.Fprintf(bw, "# %s conformance report\n\n", md(r.Protocol))
	fmt.Fprintf(bw, "**%s** %s%s\n\n", word, md(level), md(why(r, rs)))
	if r.Role == "client" {
		// A client's report names what it certifies, as the HTML one
		// does: the target's command alone says nothing of which client.
		fmt.Fprintf(bw, "- Client: %s (role client: wirecheck played the server it talks to)\n", md(line(orDefault(r.Client.String(), "(it named itself nowhere)"), capLine)))
	}
	fmt.Fprintf(bw, "- Target: %s\n", md(line(r.Target, capMessage)))
	fmt.Fprintf(bw, "- Started: %s\n", md(started(r.Started)))
	fmt.Fprintf(bw, "- Duration: %s\n", duration(r.DurationMS))
	fmt.Fprintf(bw, "- Tool: %s\n\n", md(strings.TrimSpace(orDefault(r.Tool, "wirecheck")+" "+r.Version)))

	rt, ft := ruleTally(rs), findingTally(r)
	fmt.Fprintf(bw, "## Summary\n\n")
	fmt.Fprintf(bw, "| | pass | fail | skip | error |\n|---|---:|---:|---:|---:|\n")
	fmt.Fprintf(bw, "| rules | %d | %s | %d | %d |\n", rt.Pass, failCell(rt), rt.Skip, rt.Error)
	fmt.Fprintf(bw, "| findings | %d | %s | %d | %d |\n\n", ft.Pass, failCell(ft), ft.Skip, ft.Error)

	if len(r.Notes) > 0 {
		fmt.Fprintf(bw, "### Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "- %s\n", md(line(n, capMessage)))
		}
		fmt.Fprintln(bw)
	}

	fmt.Fprintf(bw, "## Rules\n\n")
	if len(r.Revisions) > 1 {
		writeMarkdownMatrix(bw, r, rs)
	} else {
		fmt.Fprintf(bw, "| verdict | rule | level | scenarios | title | citation |\n|---|---|---|---|---|---|\n")
		for _, row := range rs {
			fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s |\n",
				mdRow(row), md(line(row.Rule.ID, capLine)), md(line(string(row.Rule.Level), 16)),
				row.Scenarios(), md(line(row.Rule.Title, capLine)), md(line(row.Rule.Source, capLine)))
		}
	}
	writeMarkdownSkipped(bw, rs)

	first := true
	for _, row := range rs {
		failing := row.Failing()
		if len(failing) == 0 {
			continue
		}
		if first {
			fmt.Fprintf(bw, "\n## Failures\n")
			first = false
		}
		fmt.Fprintf(bw, "\n### %s %s (%s): %s\n", row.label(),
			md(line(row.Rule.ID, capLine)), md(line(string(row.Rule.Level), 16)), md(line(row.Rule.Title, capLine)))
		if row.Rule.Source != "" {
			fmt.Fprintf(bw, "\nCitation: %s\n", md(citation(row.Rule)))
		}
		if q := quote(row.Rule); q != "" {
			fmt.Fprintf(bw, "\n> %s\n", md(q))
		}
		if row.Known() {
			fmt.Fprintf(bw, "\n%s\n", md(knownWhy(r)))
		}
		// Each block starts with its own blank line so that optional blocks
		// can be left out without doubling or losing the spacing.
		for _, f := range failing {
			label := verdictLabel(f.Verdict)
			if f.Known {
				label = labelKnown + " " + label
			}
			fmt.Fprintf(bw, "\n#### %s scenario %s%s\n", label, md(line(f.Where(), capLine)), seen(f))
			if f.Said() != "" {
				fmt.Fprintf(bw, "\n%s\n", md(line(f.Said(), capMessage)))
			}
			if f.Expected != "" {
				fmt.Fprintf(bw, "\nExpected:\n\n%s", fenced(block(f.Expected, capEvidence)))
			}
			if f.Actual != "" {
				fmt.Fprintf(bw, "\nActual:\n\n%s", fenced(block(f.Actual, capEvidence)))
			}
			if len(f.Transcript) > 0 {
				caption, lines := excerpt(f.Transcript, tailDoc, capEntry)
				fmt.Fprintf(bw, "\n%s\n\n%s", caption, fenced(strings.Join(lines, "\n")))
			}
			if f.Reproduce != "" {
				fmt.Fprintf(bw, "\nReproduce:\n\n%s", fenced(line(f.Reproduce, capMessage)))
			}
		}
	}
	return bw.Flush()
}

// mdEscaper covers what GitHub-flavoured Markdown gives meaning to inline
// and in table cells. '<' and '>' become entities rather than backslash
// escapes because some renderers pass raw HTML through before applying
// escapes; '&' is escaped so that an entity the server wrote shows as
// written.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`,
	"`", "\\`",
	`|`, `\|`,
	`*`, `\*`,
	`_`, `\_`,
	`[`, `\[`,
	`]`, `\]`,
	`~`, `\~`,
	`<`, `&lt;`,
	`>`, `&gt;`,
	`&`, `&amp;`,
)

// md escapes one line of inline text. Callers pass text through line
// first, so newlines are already `\n` and cannot end a table row.
func md(s string) string {
	return mdEscaper.Replace(clean(s, false))
}

// mdRow is a row's verdict cell: a failure the baseline knows is not
// shouted.
func mdRow(r ruleRow) string {
	if r.Known() {
		return labelKnown
	}
	return mdVerdict(r.Verdict)
}

// writeMarkdownSkipped lists the rules no scenario judged, one line each
// with its reasons, collapsed (GitHub renders <details> in Markdown): the
// table says they were skipped, this says why.
func writeMarkdownSkipped(w io.Writer, rs []ruleRow) {
	var skipped []ruleRow
	for _, r := range rs {
		if r.Verdict == verdict.Skip {
			skipped = append(skipped, r)
		}
	}
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "\n<details><summary>%d %s skipped: why</summary>\n\n", len(skipped), plural(len(skipped), "rule", "rules"))
	for _, r := range skipped {
		fmt.Fprintf(w, "- %s (%s): %s\n", md(line(r.Rule.ID, capLine)), md(line(string(r.Rule.Level), 16)), md(strings.Join(r.skipReasons(), "; ")))
	}
	fmt.Fprintf(w, "\n</details>\n")
}

func mdVerdict(v verdict.Verdict) string {
	if v == verdict.Fail || v == verdict.Error {
		return "**" + verdictLabel(v) + "**"
	}
	return verdictLabel(v)
}

// fenced wraps content in a code fence longer than any backtick run inside
// it, so no line of the content can close the fence early.
func fenced(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "text\n" + content + "\n" + fence + "\n"
}

// writeMarkdownMatrix is the rules table of a report of several
// revisions: a verdict column per revision instead of the scenarios.
func writeMarkdownMatrix(w io.Writer, r *Report, rs []ruleRow) {
	fmt.Fprintf(w, "| verdict | rule | level |")
	for _, rev := range r.Revisions {
		fmt.Fprintf(w, " %s |", md(line(rev.ID, 32)))
	}
	fmt.Fprintf(w, " title | citation |\n|---|---|---|%s---|---|\n", strings.Repeat(":---:|", len(r.Revisions)))
	for _, row := range rs {
		fmt.Fprintf(w, "| %s | %s | %s |", mdRow(row), md(line(row.Rule.ID, capLine)), md(line(string(row.Rule.Level), 16)))
		for _, c := range r.Matrix(row.RuleGroup) {
			if c.None != "" {
				fmt.Fprintf(w, " %s |", c.Label())
			} else {
				fmt.Fprintf(w, " %s |", mdVerdict(c.Verdict))
			}
		}
		fmt.Fprintf(w, " %s | %s |\n", md(line(row.Rule.Title, capLine)), md(line(row.Rule.Source, capLine)))
	}
	fmt.Fprintf(w, "\n%s\n", legend("; "))
}

// failCell is the fail column of the summary: independent failures, and
// those caused by another rule's apart.
func failCell(s Summary) string {
	if s.Caused == 0 {
		return fmt.Sprint(s.Fail)
	}
	return fmt.Sprintf("%d (+%d caused by another rule)", s.Fail-s.Caused, s.Caused)
}
