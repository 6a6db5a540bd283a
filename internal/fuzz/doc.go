// Package fuzz is the second source of scenarios beside the scripted
// fixtures: it generates request sequences with pgregory.net/rapid as
// scenario steps, runs them through the same step interpreter, session and
// peer (and so the same checks) as `wirecheck run` and `replay`, shrinks a
// failing sequence to a minimal one, and saves the steps that ran as a
// scenario file that `wirecheck replay` runs again, byte for byte.
//
// Fuzzing is persistent (persist.go): a server process serves sequence
// after sequence while the liveness probe that ends each finds it healthy,
// and is replaced after a failure, a hang or closed stdin and every
// Config.FreshEvery sequences; spare processes start meanwhile. A failure
// on a process that served earlier sequences is confirmed on a fresh one:
// alone, it is shrunk as usual; only after that history, the reproducer
// carries the history, shrunk to the actions the failure needs (Bug.History).
//
// Sequences run on up to Config.Jobs lanes side by side (lanes.go), each
// lane on a process of its own from the session pool run shares; a seed
// still finds, shrinks and saves the same first failure whatever Jobs is.
//
// A sequence is a list of actions drawn from the protocol's spec:
//
//   - a valid request generated from the protocol's request schema;
//   - a call of a tool the server listed, with arguments generated from its
//     input schema, valid or schema-invalid;
//   - a follow-up request of the fuzz model (spec.FuzzFollow, follow.go)
//     the server's setup answers say it offers: about an item one of the
//     model's sources listed (a resource read, subscribed to) or about
//     what it declared; one that was answered may be taken back by a later
//     action (its undo: an unsubscribe), and one that stays open (a
//     subscription: scenario.Step.Open, its acknowledgement sought with
//     scenario.Step.Seek) is cancelled by a later action, after which the
//     probe's answer shows the server read the cancellation and the open
//     request must stay unanswered (scenario.Step.Cancelled), its late
//     notifications left to the frame judge;
//   - a schema-invalid request (a required field dropped, a wrong type, a
//     value out of its enum or range, an extra property);
//   - malformed bytes (truncated JSON, invalid UTF-8, a value that is not
//     an object, deep nesting, huge strings and numbers, a BOM, NUL, CR, a
//     very long line, two messages on one line, one message split over two
//     writes, on stdio only: over HTTP a write is a body);
//   - several requests pipelined before any answer is read;
//   - closing stdin (one sequence in 16 ends so, one in 400 once the
//     server has exited cleanly on EOF twice).
//
// The oracle is the protocol's rules, plus liveness: after every invalid
// input, and at the end of every sequence, the fuzzer sends the protocol's
// known-good probe and expects an answer, so a crash, a hang or a silent
// drop is a finding rather than a pass.
//
// What the server made is named by reference, not by value: a follow-up
// request about an item an answer yielded (a taskId), and each page of a
// listing after the first (its cursor), carry {$from: NAME, $path: PTR}
// (scenario's references), which the step resolves from the answer of
// the process it runs on, so a reproducer replayed against a server that
// makes its ids anew each run asks about the ones it made. A history is
// shrunk without a unit whose producer it dropped (refs.go).
//
// A protocol with revisions is fuzzed in the one Config.Protocol was
// resolved for (spec.Protocol.ForVersion): its request schema, its setup
// and the params its requests carry (spec.Fuzz); the saved reproducer
// records the revision, so replay judges by it.
//
// Defaults (Config): 100 sequences, up to 12 actions each, seed 1, response
// timeout 2 s, 30 s of shrinking per failure, and a Duration of
// DefaultCap. Duration bounds the whole campaign, shrinking included,
// Runs or not (Stats.Capped when it ended one before its Runs): a shrink
// it or ShrinkTime cuts off saves the smallest failing sequence found so
// far, and its header says how far it was shrunk (Bug.Shrinking, "not
// shrunk" when not at all); Stats says how the time split between
// generation and shrinking.
// Config.MaxFailures ends the campaign once it has that many distinct
// failures, each shrunk (Stats.Stopped). The same seed gives the same
// sequences.
//
// Shrinking reruns each candidate on a fresh process, so there the
// server's start is the cost: spare processes start side by side, one per
// core.
package fuzz
