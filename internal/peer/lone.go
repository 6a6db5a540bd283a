package peer

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// JudgeLone judges one frame on its own, without the session it came from
// (`wirecheck validate` reads frames from a file): it returns the kind the
// frame was taken as and what is wrong with it, each problem naming the
// rule it breaks. forced, when set, is the kind to judge it as. Without
// it, the frame is taken as the first kind whose conditions it meets and
// whose schemas accept it; an answer may be any of its kinds, since its
// request is not known.
func JudgeLone(p *spec.Protocol, reg *schema.Registry, raw []byte, forced *spec.Kind) (string, []string) {
	v, err := schema.Decode(raw)
	if err != nil {
		return "", []string{"not JSON: " + err.Error()}
	}
	candidates := []*spec.Kind{forced}
	if forced == nil {
		candidates = nil
		for _, k := range p.Kinds {
			// An invalid kind is the answer to a line the peer sent raw,
			// which a file of frames cannot tell.
			if k.Role != spec.RoleRequestOut && !k.Invalid && Matches(v, k.When) {
				candidates = append(candidates, k)
			}
		}
		if len(candidates) == 0 {
			return "", []string{"matches no message kind of " + p.ID}
		}
		// A notification or a server request names its method, so its
		// first kind decides, as in the peer; only an answer, whose
		// request a file of frames lacks, may be any of its kinds.
		if r := candidates[0].Role; r == spec.RoleNotification || r == spec.RoleRequest {
			candidates = candidates[:1]
		}
	}
	var first []string
	for _, k := range candidates {
		var problems []string
		for _, c := range SchemaChecks(p, k, k.Method, v) {
			part, _ := Pointer(v, c.At)
			if err := reg.Get(c.Schema).Validate(part); err != nil {
				title := k.Name
				if r := p.Rule(c.Rule); r != nil {
					title = r.Title
				}
				problems = append(problems, fmt.Sprintf("%s: %s (%s): %s", c.Rule, title, reg.Path(c.Schema), schema.Explain(err)))
			}
		}
		if len(problems) == 0 {
			return k.Name, nil
		}
		if first == nil {
			first = problems
		}
	}
	return candidates[0].Name, first
}

// JudgeLines judges every line of in (named name in what it writes) as a
// lone frame, writing "name:line: ok (kind)" or one line per problem to
// out, and returns how many frames it read and how many were invalid.
func JudgeLines(in io.Reader, name string, p *spec.Protocol, reg *schema.Registry, forced *spec.Kind, out io.Writer) (n, bad int, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		n++
		kind, problems := JudgeLone(p, reg, sc.Bytes(), forced)
		if len(problems) == 0 {
			fmt.Fprintf(out, "%s:%d: ok (%s)\n", name, line, kind)
			continue
		}
		bad++
		for _, prob := range problems {
			fmt.Fprintf(out, "%s:%d: %s\n", name, line, prob)
		}
	}
	if err := sc.Err(); err != nil {
		return n, bad, fmt.Errorf("%s: %v", name, err)
	}
	return n, bad, nil
}

// JudgeFiles is JudgeLines on each file named in turn ("-", or none
// named, is stdin, named so), every line judged as the kind called kind
// when one is named, followed by the count of valid and invalid lines; it
// returns how many were invalid. An unknown kind is refused before a file
// is opened.
func JudgeFiles(files []string, stdin io.Reader, p *spec.Protocol, reg *schema.Registry, kind string, out io.Writer) (bad int, err error) {
	var forced *spec.Kind
	if kind != "" {
		if forced, err = p.KindNamed(kind); err != nil {
			return 0, err
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	n := 0
	for _, file := range files {
		in, name := io.NopCloser(stdin), "stdin"
		if file != "-" {
			f, err := os.Open(file)
			if err != nil {
				return bad, err
			}
			in, name = f, file
		}
		m, b, err := JudgeLines(in, name, p, reg, forced, out)
		if in.Close(); err != nil {
			return bad + b, err
		}
		n, bad = n+m, bad+b
	}
	fmt.Fprintf(out, "%d lines: %d valid, %d invalid\n", n, n-bad, bad)
	return bad, nil
}
