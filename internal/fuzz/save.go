package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/transcript"
)

// Save writes a bug's shrunk sequence as a scenario file in dir and
// returns its path. The name is the rule and a hash of the steps, never
// anything the server sent, so a hostile server cannot choose where it
// lands. The file runs again with `wirecheck replay FILE -- CMD`.
func (c *Campaign) Save(b *Bug, dir string) (string, error) {
	sc := scenario.Scenario{
		Title:    fmt.Sprintf("fuzz: %s after %s", b.Rule, b.Shape),
		Rules:    stepRules(b.Rule, b.Steps),
		Fresh:    true,
		Steps:    plainSteps(b.Steps),
		Protocol: c.cfg.Protocol.ID,
		Seed:     b.Seed,
		Command:  c.cfg.Target.String(),
	}
	p := c.cfg.Protocol
	if p.Versions != nil {
		// The revision the sequence was generated and judged in: replay
		// judges by it without being told.
		sc.Params = map[string]string{p.Versions.Param: p.Version}
	}
	body, err := yaml.Marshal(&sc)
	if err != nil {
		return "", fmt.Errorf("encoding the reproducer: %w", err)
	}
	sum := sha256.Sum256(body)
	name := strings.ToLower(b.Rule) + "-" + hex.EncodeToString(sum[:])[:10]
	sc.Name = name
	// The failure's message is told, not hashed: it may carry timings
	// ("exited 4ms after …"), and a seed names one file on any machine.
	sc.Failing = b.First.Message
	if body, err = yaml.Marshal(&sc); err != nil {
		return "", err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Saved by wirecheck fuzz: %s broke after %s (%d hits).\n", b.Rule, b.Shape, b.Hits)
	if b.History {
		out.WriteString("# It showed only after earlier sequences on the same server process: the steps carry that history, shrunk.\n")
	}
	// How far it was shrunk, so a reproducer that is not minimal says so.
	fmt.Fprintf(&out, "# Reproducer %s.\n", b.Shrinking())
	if b.Unshrunk != "" {
		fmt.Fprintf(&out, "# Not minimal: %s.\n", b.Unshrunk)
	}
	if p.Versions != nil {
		fmt.Fprintf(&out, "# Revision %s (params: %s): replay judges by it; --param %s=V (or its flag) overrides.\n",
			p.Version, p.Versions.Param, p.Versions.Param)
	}
	file := filepath.Join(dir, name+".yaml")
	replay := "wirecheck replay " + file + " -- " + c.cfg.Target.String()
	if c.cfg.Replay != nil {
		replay = c.cfg.Replay(file)
	}
	// A newline in an argument stays in the comment.
	fmt.Fprintf(&out, "# Replay: %s\n", strings.ReplaceAll(replay, "\n", "\n#   "))
	out.Write(body)
	writeTranscript(&out, b.Transcript, b.Shrinking())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
		return "", err
	}
	return file, nil
}

// plainSteps turns json.Number values into plain numbers, so YAML writes
// them as numbers and replay sends the same JSON types.
func plainSteps(steps []scenario.Step) []scenario.Step {
	out := make([]scenario.Step, len(steps))
	for i, st := range steps {
		if st.Send != nil {
			st.Send = plain(st.Send)
		}
		out[i] = st
	}
	return out
}

// plain turns the json.Numbers of a decoded request into the int64 or
// float64 YAML writes as numbers.
func plain(v any) any {
	return jsonval.Map(v, func(v any) any {
		x, ok := v.(json.Number)
		if !ok {
			return v
		}
		if n, err := x.Int64(); err == nil {
			return n
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	})
}

// stepRules lists the failing rule and every rule a step decides, as a
// scenario must declare them.
func stepRules(failing string, steps []scenario.Step) []string {
	out := []string{failing}
	seen := map[string]bool{failing: true}
	for _, st := range steps {
		rules := []string{st.Rule}
		for _, a := range st.Also {
			rules = append(rules, a.Rule)
		}
		for _, r := range rules {
			if r != "" && !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// writeTranscript appends the saved run's transcript as YAML comments,
// under a header that says how far it was shrunk: evidence for the
// reader, ignored by replay. Each line is quoted, so nothing a server
// sent can end the comment or inject YAML.
func writeTranscript(out *bytes.Buffer, es []transcript.Entry, shrinking string) {
	if len(es) == 0 {
		return
	}
	arrows := map[transcript.Direction]string{transcript.Sent: "→", transcript.Received: "←", transcript.Stderr: "!", transcript.Note: "#"}
	fmt.Fprintf(out, "# Transcript of the run saved above, %s:\n", shrinking)
	if len(es) > 40 {
		fmt.Fprintf(out, "#   (%d earlier lines left out)\n", len(es)-40)
		es = es[len(es)-40:]
	}
	for _, e := range es {
		text := e.Text
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		q := strconv.Quote(text)
		fmt.Fprintf(out, "#   %8.1fms %s %s\n", e.OffsetMS, arrows[e.Dir], strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`))
	}
}
