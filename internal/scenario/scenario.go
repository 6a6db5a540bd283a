// Package scenario defines scenarios (sequences of steps with expectations)
// and runs them against a peer. Scripted scenarios are YAML files in
// fixtures/<protocol>/; a scenario a file cannot say is written in Go with
// the same Env.
package scenario

import (
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scenario is one sequence of steps checking a declared set of rules.
type Scenario struct {
	Name  string `yaml:"name"`
	Title string `yaml:"title"`
	// Rules lists every rule the scenario decides. A declared rule that the
	// scenario never observed is reported as an error: the fixture is wrong.
	Rules []string `yaml:"rules"`
	// Fresh asks for a server process of its own (startup contract, closing
	// stdin, crash behaviour).
	Fresh bool `yaml:"fresh"`
	// Idle is how long the scenario waits on the server by design (an exit
	// deadline, a slow call running its course). The runner starts the
	// lanes with the most of it first, so those waits overlap the rest.
	Idle  time.Duration `yaml:"-"`
	Steps []Step        `yaml:"steps"`
	// Run is set for scenarios written in Go instead of Steps.
	Run func(e *Env) error `yaml:"-"`

	// File and Line locate the scenario's definition, for messages.
	File string `yaml:"-"`
	Line int    `yaml:"-"`
	// Protocol, Params, Seed, Failing and Command are kept by regressions
	// the fuzzer saved, so `wirecheck replay FILE` needs nothing else.
	// Params are the --param settings the scenario runs under; for a
	// versioned protocol, the revision it was found in (the revision param), by
	// which replay judges it.
	Protocol string            `yaml:"protocol,omitempty"`
	Params   map[string]string `yaml:"params,omitempty"`
	Seed     uint64            `yaml:"seed,omitempty"`
	Failing  string            `yaml:"failing,omitempty"`
	Command  string            `yaml:"command,omitempty"`
}

// Step is one action or expectation. Exactly one action field is set.
type Step struct {
	// Send writes a JSON value as one message; As names it for Expect.
	// Values in it may be references resolved as the step runs ({$from:
	// NAME, $path: PTR} or {$param: KEY}; see refs.go).
	Send any    `yaml:"send,omitempty"`
	As   string `yaml:"as,omitempty"`
	// SendLine writes the text followed by a newline; SendRaw writes it as
	// is (YAML escapes such as "\x00" give any byte).
	SendLine *string `yaml:"send_line,omitempty"`
	SendRaw  *string `yaml:"send_raw,omitempty"`
	// SendBase64 writes decoded bytes as they are: raw input that is not
	// text (invalid UTF-8), as the fuzzer saves it.
	SendBase64 *string `yaml:"send_base64,omitempty"`
	// Split, on a send step, writes the line in two writes split at this
	// byte offset, to check that the server reassembles it.
	Split int `yaml:"split,omitempty"`
	// Open, on a send step, is a request that stays open (a
	// subscription): the server answers it late or never, so it is sent
	// as the probe is (a refused or timed-out exchange of it is no
	// finding) and is not in flight for any wait: its silence is judged
	// by nothing, and an answer, when one comes, is matched to it and
	// judged as any other (see Cancelled).
	Open bool `yaml:"open,omitempty"`
	// Answered says a raw line may be answered by one response with a null
	// id (default true), so that answer is not a stray.
	Answered *bool `yaml:"answered,omitempty"`

	// Expect waits for the response to the send named here.
	Expect string `yaml:"expect,omitempty"`
	// ExpectFrame waits for the next frame not answering a named send
	// (a ready line, a null-id error, a notification).
	ExpectFrame bool `yaml:"expect_frame,omitempty"`
	// ExpectSilence passes when no frame at all arrives for the duration.
	ExpectSilence Duration `yaml:"expect_silence,omitempty"`
	// ExpectAlive sends the protocol's probe request and expects an answer.
	ExpectAlive bool `yaml:"expect_alive,omitempty"`
	// CloseStdin closes the server's input.
	CloseStdin bool `yaml:"close_stdin,omitempty"`
	// ExpectExit waits for the process to end.
	ExpectExit *Exit `yaml:"expect_exit,omitempty"`
	// Restart replaces the server process with a new one.
	Restart bool `yaml:"restart,omitempty"`
	// Sleep waits without expecting anything.
	Sleep Duration `yaml:"sleep,omitempty"`
	// Disturb has the transport misbehave below the messages as it names
	// (transport.Disturber: over HTTP, a broken stream, a malformed
	// event, an ended session): the fuzzer draws it where the transport
	// offers any.
	Disturb string `yaml:"disturb,omitempty"`
	// Drain drops the frames no step has taken (late answers to earlier
	// raw lines), so the frame an expect_frame step reads next came after
	// it: the fuzzer saves it before the line whose answer it judges, and
	// replay then judges the answer the fuzzer judged.
	Drain bool `yaml:"drain,omitempty"`

	// Slow, on an expect step, is a request the protocol bounds no time
	// for (a tool call where the protocol bounds no time): unanswered within the timeout while the
	// server answers the probe sent after it, it is slow, not missing, and
	// not judged (the transcript and the notes say so), as run's scenarios
	// leave a slow tool; with the probe unanswered too, the server hangs.
	Slow bool `yaml:"slow,omitempty"`

	// Cancelled, on an expect step, is the named request cancelled
	// before it (and a later request answered since, so the server has
	// read the cancellation): it is owed no answer, and one that has come
	// fails Rule; none passes it. The step does not wait.
	Cancelled bool `yaml:"cancelled,omitempty"`
	// Seek, on an expect_frame step, passes over the frames that do not
	// match its match conditions: the frame judged is the first that does
	// (an acknowledgement among the notifications of earlier requests);
	// none within the timeout fails Rule.
	Seek bool `yaml:"seek,omitempty"`

	// Optional marks an expect step that calls a method the server may
	// leave out: when the response says the method is not implemented (the
	// protocol's unimplemented conditions), Rule is reported as skipped
	// instead of judged.
	Optional bool `yaml:"optional,omitempty"`

	// Rule is what an expectation decides.
	Rule   string `yaml:"rule,omitempty"`
	Assert `yaml:",inline"`
	// Also, on an expect_frame step, judges the same frame by further
	// rules, each by its own assertions (one answer, two rules: the
	// fuzzer's malformed answer, SONDE-MALFORMED-1 and -2); a frame that
	// never comes fails them all.
	Also []Also `yaml:"also,omitempty"`
	// Within overrides --timeout for this expectation.
	Within Duration `yaml:"within,omitempty"`
	// Depends, on an expect_frame step, names the behaviour of the server
	// the frame depends on, shared by the steps that wait on the same
	// behaviour (an answer to a line that is not JSON): once one of their
	// waits has run out, the others (in the lane) end at once and fail,
	// naming that wait, instead of each waiting out its bound.
	Depends string `yaml:"depends,omitempty"`

	Line int `yaml:"-"`
}

// Also is a further rule an expect_frame step judges its frame by.
type Also struct {
	Rule   string `yaml:"rule"`
	Assert `yaml:",inline"`
}

// Assert is a set of conditions on a frame; all must hold.
type Assert struct {
	Kind    string            `yaml:"kind,omitempty"`
	Match   map[string]any    `yaml:"match,omitempty"`
	Present []string          `yaml:"present,omitempty"`
	Absent  []string          `yaml:"absent,omitempty"`
	Pattern map[string]string `yaml:"pattern,omitempty"`
	Type    map[string]string `yaml:"type,omitempty"`
}

// Exit is an expectation on the process's end.
type Exit struct {
	Within Duration `yaml:"within"`
	// Code is the expected exit status; nil accepts any clean exit.
	Code *int `yaml:"code"`
}

// Duration reads "300ms" or "2s" from YAML.
type Duration time.Duration

// UnmarshalYAML parses a Go duration ("300ms", "2s"); the error carries
// the line so the author finds the typo.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: bad duration %q: want a number with a unit, such as 300ms or 2s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration back, for saved regressions.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// D is the duration as time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }
