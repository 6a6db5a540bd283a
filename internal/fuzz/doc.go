// Package fuzz is the second source of scenarios beside the scripted
// fixtures: it generates request sequences with pgregory.net/rapid, runs
// each against a fresh server process through the same peer (and so the
// same checks) as `wirecheck run`, shrinks a failing sequence to a minimal
// one, and saves it as a scenario file that `wirecheck replay` runs again.
//
// A sequence is a list of actions drawn from the protocol's spec:
//
//   - a valid request generated from the protocol's request schema;
//   - a call of a tool the server listed, with arguments generated from its
//     input schema, valid or schema-invalid;
//   - a schema-invalid request (a required field dropped, a wrong type, a
//     value out of its enum or range, an extra property);
//   - malformed bytes (truncated JSON, invalid UTF-8, a value that is not
//     an object, deep nesting, huge strings and numbers, a BOM, NUL, CR, a
//     very long line, two messages on one line, one message split over two
//     writes);
//   - several requests pipelined before any answer is read;
//   - closing stdin.
//
// The oracle is the protocol's rules, plus liveness: after every invalid
// input, and at the end of every sequence, the fuzzer sends the protocol's
// known-good probe and expects an answer, so a crash, a hang or a silent
// drop is a finding rather than a pass.
//
// A protocol with revisions is fuzzed in the one Config.Protocol was
// resolved for (spec.Protocol.ForVersion): its request schema, its setup
// and the params its requests carry (spec.Fuzz); the saved reproducer
// records the revision, so replay judges by it.
//
// Defaults (Config): 100 sequences, up to 12 actions each, seed 1, response
// timeout 2 s, 30 s of shrinking per failure. A Duration is the budget of
// the whole campaign, shrinking included: a shrink it cuts off saves the
// smallest failing sequence found so far, marked as not minimal (Bug.Unshrunk),
// and Stats says how the time split between generation and shrinking. The
// same seed gives the same sequences.
package fuzz
