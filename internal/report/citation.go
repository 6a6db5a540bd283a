package report

import (
	"strings"

	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A rule is cited by the document's human title and section, with the
// name its spec cites the document by (a seed file, "Spec 2025-06-18") as
// the reference, and shown with the sentence it tests: a reader follows
// the citation without the repository that holds the file.

// capQuote bounds a quoted sentence.
const capQuote = 1 << 10

// citation is how writers show where ru comes from: "the sonde-serve
// protocol document, § Outputs (000_239269c7ecb57487.txt)"; the bare
// Source when the report names no title (an older report).
func citation(ru verdict.Rule) string {
	if ru.Document == "" {
		return line(ru.Source, capLine)
	}
	doc, section, found := strings.Cut(ru.Source, " § ")
	s := ru.Document
	if found {
		s += ", § " + section
	}
	return line(s+" ("+doc+")", capLine+100)
}

// quote is ru's quoted sentence on one line, in quotation marks; "" when
// the rule has none.
func quote(ru verdict.Rule) string {
	q := strings.Join(strings.Fields(ru.Quote), " ")
	if q == "" {
		return ""
	}
	return "“" + line(q, capQuote) + "”"
}
