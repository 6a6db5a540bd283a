// Package officialsuite maps the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in test/interop/official) to
// wirecheck's rules: every server check id of the pinned version, what
// wirecheck judges in its place and, where nothing, why. The table
// (checks.tsv) is the one docs/official-suite.md prints, and the one an
// expected-failures file of the suite is read through when it is given as
// a baseline (--baseline), so a project moving over keeps its baseline.
package officialsuite

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Version is the pinned suite whose check ids checks.tsv maps.
const Version = "0.2.0-alpha.12"

//go:embed checks.tsv
var table []byte

// authzTable maps the checks of the suite's authorization command, which
// judges an authorization server (wirecheck's mcp-authorization).
//
//go:embed authorization.tsv
var authzTable []byte

// clientTable maps the checks of the suite's client scenarios, which
// judge an MCP client (wirecheck's client role, --role client).
//
//go:embed client.tsv
var clientTable []byte

// Status is how wirecheck stands to one check of the suite.
type Status string

const (
	// Covered: a rule judges what the check judges, on any server.
	Covered Status = "covered"
	// Partly: a rule judges part of it; Why says which part is left.
	Partly Status = "partly"
	// Fixture: the check judges the suite's own fixture (a tool, prompt
	// or resource by name, a behaviour only its test server promises) or
	// its own setup, which no sentence asks of a server; Rules are what
	// wirecheck judges on the server's own tools instead.
	Fixture Status = "fixture"
	// Extension: the check belongs to an extension wirecheck has not
	// built yet (tasks, skills).
	Extension Status = "extension"
	// Missing: a sentence wirecheck has no rule for yet; Why names it.
	Missing Status = "missing"
	// Unspoken: no sentence of the specification asks what the check
	// asks (the suite asks it anyway): no rule, on purpose.
	Unspoken Status = "unspoken"
)

// Check is one row of the table.
type Check struct {
	ID, Scenario string
	Status       Status
	Rules        []string
	Why          string
}

// Checks are the table's rows, by scenario then id.
func Checks() []Check { return parse("checks.tsv", table) }

// AuthorizationChecks are the rows of the authorization-server checks
// (authorization.tsv), by scenario then id.
func AuthorizationChecks() []Check { return parse("authorization.tsv", authzTable) }

// ClientChecks are the rows of the client checks (client.tsv), by
// scenario then id.
func ClientChecks() []Check { return parse("client.tsv", clientTable) }

func parse(name string, table []byte) []Check {
	var out []Check
	sc := bufio.NewScanner(bytes.NewReader(table))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			panic(fmt.Sprintf("%s:%d: want 5 tab-separated fields, got %d", name, n, len(f)))
		}
		out = append(out, Check{ID: f[0], Scenario: f[1], Status: Status(f[2]), Rules: strings.Fields(f[3]), Why: f[4]})
	}
	return out
}

// Rules are the wirecheck rules an entry of the suite's expected-failures
// file stands for: a check's rules, or for a whole scenario the rules of
// all its checks, where the check is covered or partly covered. None
// (nil) when the entry names nothing the table maps to a rule: a check or
// scenario the pinned suite does not have, one wirecheck has no rule for,
// or a fixture check, whose rules are what wirecheck judges instead, not
// the same thing (a server without the suite's test_image_content fails
// that check, and must not have its schema failures excused for it). A check id means the same in every scenario
// that emits it (a few are emitted by two), so a check the table keeps
// under another scenario of the suite is found there; a row whose id is a
// pattern (x-*, an id built in a loop) stands for every id it matches.
func Rules(scenario, check string) []string {
	rows := named(scenario, check)
	seen := map[string]bool{}
	var out []string
	for _, c := range rows {
		if c.Status != Covered && c.Status != Partly {
			continue
		}
		for _, r := range c.Rules {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Unmapped says why an entry maps to no rule (Rules is empty): what the
// table says of the checks it names, or that the pinned suite has no such
// scenario or check.
func Unmapped(scenario, check string) string {
	says := map[Status]string{
		Fixture:   "the suite's fixture or setup, no sentence",
		Extension: "an extension wirecheck has not built yet",
		Missing:   "no rule yet",
		Unspoken:  "asked by no sentence",
	}
	seen := map[Status]bool{}
	var why []string
	for _, c := range named(scenario, check) {
		if seen[c.Status] || says[c.Status] == "" {
			continue
		}
		seen[c.Status] = true
		why = append(why, says[c.Status])
	}
	if len(why) == 0 {
		what := "scenario " + scenario
		if check != "" {
			what = "check " + check + " in " + what
		}
		return "the official suite " + Version + " has no server " + what
	}
	sort.Strings(why)
	return strings.Join(why, "; ")
}

// named are the rows an entry names: the scenario's (all, or the check's),
// the runner's check under any scenario, and a check the table keeps
// under another scenario of the suite that also emits it.
func named(scenario, check string) []Check {
	var rows []Check
	for _, c := range Checks() {
		// A whole-scenario entry stands for the scenario's own checks, not
		// the runner's schema check of every scenario: that one would
		// make every such entry excuse MCP-SCHEMA-1 everywhere.
		if c.Scenario == scenario && (check == "" || idMatch(c.ID, check)) ||
			c.Scenario == AnyScenario && check != "" && idMatch(c.ID, check) {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 && check != "" && scenarioKnown(scenario) {
		for _, c := range Checks() {
			if idMatch(c.ID, check) {
				rows = append(rows, c)
			}
		}
	}
	return rows
}

// idMatch says whether a table id (a pattern where it holds *) names id.
func idMatch(pattern, id string) bool {
	ok, err := path.Match(pattern, id)
	return err == nil && ok
}

func scenarioKnown(s string) bool {
	for _, c := range Checks() {
		if c.Scenario == s {
			return true
		}
	}
	return false
}

// Counts are the table's rows by status.
func Counts() map[Status]int {
	n := map[Status]int{}
	for _, c := range Checks() {
		n[c.Status]++
	}
	return n
}

// Table is the markdown table docs/official-suite.md carries between its
// markers, generated from checks.tsv.
func Table() string {
	var b strings.Builder
	n := Counts()
	fmt.Fprintf(&b, "%d server check ids: %d covered, %d partly, %d fixture-only, %d of the extensions (not built yet), %d missing a rule, %d asking what no sentence asks.\n\n",
		len(Checks()), n[Covered], n[Partly], n[Fixture], n[Extension], n[Missing], n[Unspoken])
	rows(&b, Checks())
	authz := AuthorizationChecks()
	n = map[Status]int{}
	for _, c := range authz {
		n[c.Status]++
	}
	fmt.Fprintf(&b, "\nThe suite's `authorization` command judges an authorization server; wirecheck's protocol `mcp-authorization` does (`wirecheck run --protocol mcp-authorization --url https://as.example/`). %d authorization-server check ids: %d covered, %d partly, %d missing a rule.\n\n",
		len(authz), n[Covered], n[Partly], n[Missing])
	rows(&b, authz)
	cl := ClientChecks()
	n = map[Status]int{}
	for _, c := range cl {
		n[c.Status]++
	}
	fmt.Fprintf(&b, "\nThe suite's client scenarios (`list --client`) judge an MCP client; wirecheck's client role does (`wirecheck run --protocol mcp --role client --transport http -- CLIENT-CMD {url}`). %d client check ids: %d covered, %d partly, %d fixture-only, %d of the extensions (not built yet), %d missing a rule, %d asking what no sentence asks.\n\n",
		len(cl), n[Covered], n[Partly], n[Fixture], n[Extension], n[Missing], n[Unspoken])
	rows(&b, cl)
	return b.String()
}

func rows(b *strings.Builder, cs []Check) {
	b.WriteString("| scenario | check id | wirecheck | rules | why |\n|---|---|---|---|---|\n")
	for _, c := range cs {
		fmt.Fprintf(b, "| `%s` | `%s` | %s | %s | %s |\n", c.Scenario, c.ID, c.Status, strings.Join(c.Rules, ", "), strings.ReplaceAll(c.Why, "|", "\\|"))
	}
}
