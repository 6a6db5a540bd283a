package officialsuite

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The suite ships one minified bundle (dist/index.js) and no list of its
// check ids: a check is an object literal built at run time. The ids are
// read from the bundle's text instead, within the server scenarios' part
// of it, by the three shapes a server check id takes there:
//
//   - beside its name: id:`x`,name:`X`, a helper's (`x`,`X`, or a pair of
//     declarations `x`,r=`X` (ids are kebab case, names Pascal case; the
//     last two only with a dash in the id, as a message is not an id);
//   - a skills check, whose helper takes the id as its name too: P(`x`;
//   - a SEP check declared ahead of its use: any `sep-NNNN-…` literal
//     other than a scenario's name;
//   - an id built in a loop, `x-${…}` beside its name, as the pattern x-*.
//
// The part is from the end of the class before the first server scenario
// (`server-initialize`) to the end of the class of the last
// (`http-custom-header-server-validation`): the bundle keeps each module's
// helpers just ahead of its class, and the server scenarios' modules
// together.
var (
	className  = regexp.MustCompile("this\\.name=`([^`]+)`")
	idWithName = regexp.MustCompile("id:`([a-z][A-Za-z0-9$]*(?:-[A-Za-z0-9$]+)*)`,name:`[A-Z][A-Za-z0-9_$]*`")
	idThenName = regexp.MustCompile("`([a-z][a-z0-9$]*(?:-[a-z0-9$]+)+)`,(?:[\\w$]+=)?`[A-Z][A-Za-z0-9_$]*`")
	skillsID   = regexp.MustCompile("\\WP\\(`([a-z][a-z0-9-]+)`")
	sepID      = regexp.MustCompile("`(sep-[0-9]+-[a-z0-9-]+)`")
	// An id built in a loop: `x-${…}`, beside its name. It is kept as the
	// pattern x-* (the values come from the loop's array, which the
	// table's row lists).
	runnerID   = regexp.MustCompile("id:`(wire-schema-[a-z-]+)`,name:`")
	templateID = regexp.MustCompile("`([a-z][a-z0-9-]*-)\\$\\{[^}`]*\\}([a-z0-9-]*)`,(?:name:)?`[A-Z]")
)

// AnyScenario is the scenario of a check the runner adds to every
// scenario's results rather than one scenario's code.
const AnyScenario = "*"

// First and last server scenario of the bundle.
const (
	firstServerScenario = "server-initialize"
	lastServerScenario  = "http-custom-header-server-validation"
)

type class struct {
	at   int
	name string
}

// classesOf are the bundle's scenario classes, by where they begin.
func classesOf(bundle []byte) []class {
	var classes []class
	for _, m := range className.FindAllSubmatchIndex(bundle, -1) {
		classes = append(classes, class{m[0], string(bundle[m[2]:m[3]])})
	}
	return classes
}

// classEnd is where a class ends, "}};" (its last method, the class, the
// declaration) with the next module's first declaration after it: const,
// var or function at the top level, never let, which inside a method
// follows a block's "}};" too.
var classEnd = regexp.MustCompile(`\}\};(?:const |var |function |async function )`)

// serverBounds are the server scenarios' part of the bundle [lo, hi) and
// the indexes of their first and last class.
func serverBounds(bundle []byte, classes []class) (first, last, lo, hi int, err error) {
	first, last = -1, -1
	for i, c := range classes {
		switch c.name {
		case firstServerScenario:
			first = i
		case lastServerScenario:
			last = i
		}
	}
	if first < 1 || last < first {
		return 0, 0, 0, 0, fmt.Errorf("the bundle has no server scenarios %s…%s: its layout changed", firstServerScenario, lastServerScenario)
	}
	start := classEnd.FindIndex(bundle[classes[first-1].at:classes[first].at])
	end := classEnd.FindIndex(bundle[classes[last].at:])
	if start == nil || end == nil {
		return 0, 0, 0, 0, fmt.Errorf("the bundle's server scenarios have no bounds: its layout changed")
	}
	return first, last, classes[first-1].at + start[0] + 3, classes[last].at + end[0] + 3, nil
}

// BundleChecks are the server check ids of the suite's bundle, each with
// the scenario whose code holds it (the scenario class it is in or, for a
// helper ahead of a class, the class after it), and the server scenarios.
func BundleChecks(bundle []byte) (checks map[string]string, scenarios []string, err error) {
	classes := classesOf(bundle)
	first, last, lo, hi, err := serverBounds(bundle, classes)
	if err != nil {
		return nil, nil, err
	}
	region := bundle[lo:hi]
	var names []class
	for _, c := range classes[first : last+1] {
		names = append(names, c)
		scenarios = append(scenarios, c.name)
	}
	owner := func(at int) string {
		// The class the position is in: the last one starting before it,
		// unless a helper of the next class sits between (a top-level
		// declaration after the class's end).
		at += lo
		i := sort.Search(len(names), func(i int) bool { return names[i].at > at }) - 1
		if i < 0 {
			return names[0].name
		}
		if e := classEnd.FindIndex(bundle[names[i].at:at]); e != nil && i+1 < len(names) {
			return names[i+1].name
		}
		return names[i].name
	}
	checks = map[string]string{}
	add := func(re *regexp.Regexp) {
		for _, m := range re.FindAllSubmatchIndex(region, -1) {
			id := string(region[m[2]:m[3]])
			if _, ok := checks[id]; !ok {
				checks[id] = owner(m[2])
			}
		}
	}
	add(idWithName)
	add(idThenName)
	add(skillsID)
	// A scenario's own name (this.name=`sep-…`) is no check of its own.
	named := map[string]bool{}
	for _, s := range scenarios {
		if _, ok := checks[s]; !ok {
			named[s] = true
		}
	}
	add(sepID)
	for _, m := range templateID.FindAllSubmatchIndex(region, -1) {
		id := string(region[m[2]:m[3]]) + "*" + string(region[m[4]:m[5]])
		if _, ok := checks[id]; !ok {
			checks[id] = owner(m[2])
		}
	}
	for s := range named {
		delete(checks, s)
	}
	// The runner's own checks, added to every scenario's results: the
	// schema of everything the implementation sent on the wire.
	for _, m := range runnerID.FindAllSubmatch(bundle, -1) {
		checks[string(m[1])] = AnyScenario
	}
	return checks, scenarios, nil
}

// authzScenario marks a scenario of the suite's authorization command:
// its description says what it asks of an authorization server.
const authzScenario = "**Authorization Server Implementation Requirements:**"

var checkID = regexp.MustCompile("\\bid:`([a-z0-9][a-z0-9-]*)`")

// BundleAuthorizationChecks reads from the suite's bundle the check ids
// of its authorization-server scenarios (the classes whose description
// names authzScenario), each with its scenario.
func BundleAuthorizationChecks(bundle []byte) (checks map[string]string, err error) {
	checks = map[string]string{}
	ms := className.FindAllSubmatchIndex(bundle, -1)
	for i, m := range ms {
		end := len(bundle)
		if i+1 < len(ms) {
			end = ms[i+1][0]
		}
		body := bundle[m[0]:end]
		if !bytes.Contains(body, []byte(authzScenario)) {
			continue
		}
		name := string(bundle[m[2]:m[3]])
		for _, id := range checkID.FindAllSubmatch(body, -1) {
			checks[string(id[1])] = name
		}
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("the bundle has no authorization-server scenarios: its layout changed")
	}
	return checks, nil
}

// clientCheckID is a client check's id as the suite writes it: beside its
// name (a spec reference has an id and a url, and upper case).
var clientCheckID = regexp.MustCompile("\\bid:`([a-z][A-Za-z0-9$]*(?:-[A-Za-z0-9$]+)*)`,name:`")

// BundleClientChecks reads from the suite's bundle the check ids of its
// client scenarios: every check id outside the server scenarios' part
// and the authorization-server scenarios, but the runner's schema checks
// (which checks.tsv keeps). A check's scenario is the class it sits in
// or, for a helper ahead of the classes that share it, the one after it;
// the table keeps the scenario a run emits it in, so only ids are
// compared.
func BundleClientChecks(bundle []byte) (checks map[string]string, err error) {
	classes := classesOf(bundle)
	_, _, lo, hi, err := serverBounds(bundle, classes)
	if err != nil {
		return nil, err
	}
	type span struct{ lo, hi int }
	skip := []span{{lo, hi}}
	for i, c := range classes {
		end := len(bundle)
		if i+1 < len(classes) {
			end = classes[i+1].at
		}
		if bytes.Contains(bundle[c.at:end], []byte(authzScenario)) {
			skip = append(skip, span{c.at, end})
		}
	}
	owner := func(at int) string {
		i := sort.Search(len(classes), func(i int) bool { return classes[i].at > at }) - 1
		if i < 0 {
			return classes[0].name
		}
		return classes[i].name
	}
	checks = map[string]string{}
next:
	for _, m := range clientCheckID.FindAllSubmatchIndex(bundle, -1) {
		for _, s := range skip {
			if m[0] >= s.lo && m[0] < s.hi {
				continue next
			}
		}
		id := string(bundle[m[2]:m[3]])
		if strings.HasPrefix(id, "wire-schema-") {
			continue
		}
		if _, ok := checks[id]; !ok {
			checks[id] = owner(m[0])
		}
	}
	if len(checks) == 0 {
		return nil, fmt.Errorf("the bundle has no client scenarios: its layout changed")
	}
	return checks, nil
}
