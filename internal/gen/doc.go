// Package gen derives rapid generators of JSON values from compiled JSON
// Schemas (github.com/santhosh-tekuri/jsonschema/v6), so that the harness can
// fuzz a peer with well-formed requests, probe it with malformed ones, and
// call tools with arguments built from the inputSchema the server itself
// advertised.
//
// # Value representation
//
// Generated values use the shape that jsonschema.UnmarshalJSON (and
// encoding/json with Decoder.UseNumber) produces, because that is what
// (*jsonschema.Schema).Validate is written against and it round-trips
// through encoding/json exactly:
//
//	object  map[string]any
//	array   []any
//	string  string
//	number  json.Number (always a plain decimal, never an exponent)
//	boolean bool
//	null    nil
//
// json.Number rather than float64 keeps multipleOf and large integer bounds
// exact: 0.1+0.2 style rounding would otherwise produce values the validator
// rejects.
//
// # Entry points
//
//   - [Valid] / [ValidWith]: values that validate against the schema.
//   - [Invalid] / [InvalidWith]: a valid value with one schema-level mutation
//     that makes it fail validation, plus a sentence saying what was broken.
//   - [Example] / [TryExample]: one deterministic valid value for a seed,
//     for callers without a *rapid.T.
//   - [Compile]: compile a standalone schema document received as bytes.
//
// # Defaults
//
// The zero [Options] means: strings of at most 16 characters, arrays of at
// most 4 items, at most 2 properties the schema does not name, nesting depth
// 5, and 10000 sub-value attempts per top-level value. A schema's own
// minimum (minLength, minItems, minProperties, required) always wins over
// these caps, and structure that the schema requires is generated even
// below the depth limit; past it only optional parts are dropped.
//
// # How values are built
//
// Keywords are not interpreted one schema at a time. At each instance
// location the generator collects the conjunction of every schema that
// applies there ($ref, $dynamicRef and $recursiveRef targets, allOf
// members, one chosen branch of each anyOf/oneOf, one side of if/then/else)
// and builds a value satisfying all of them at once: type sets are
// intersected, numeric bounds tightened, multipleOf values combined by
// least common multiple, properties and items merged per name and
// position. Keywords that cannot be satisfied by construction (oneOf
// exclusivity, not, dependentSchemas, unevaluated*, contains with
// maxContains, format combined with length or pattern, patterns the regexp
// walker cannot honour) are enforced by validating the candidate and
// retrying through rapid, which keeps shrinking meaningful.
//
// Recursive schemas terminate because every schema is annotated with the
// minimum nesting depth of any value it accepts; past Options.MaxDepth the
// generator only picks branches, types and properties whose minimum fits.
//
// # Formats
//
// format only constrains values when the compiler asserts it: always for
// draft-07, and for 2019-09/2020-12 only when the compiler was told
// AssertFormat (as [Compile] does). Generated strings honour date-time,
// date, time, duration, period, email, hostname, ipv4, ipv6, uri, iri,
// uri-reference, iri-reference, uri-template, uuid, json-pointer,
// relative-json-pointer, regex and semver. Formats the validator does not
// know (MCP uses "byte") are not asserted and get ordinary strings.
//
// # Not supported
//
//   - $dynamicRef is followed to its static target; dynamic-scope overrides
//     are only honoured through the final validation and retry.
//   - contentEncoding/contentMediaType/contentSchema are not generated for;
//     they only matter when the compiler asserts content, in which case
//     candidates are filtered.
//   - Patterns using features Go's regexp lacks cannot occur: the compiler
//     already rejected them. Patterns whose language is too sparse to hit
//     by walking the syntax tree (for example contradictory lookalike
//     anchors) fail the attempt and rapid moves on.
//   - A schema that accepts every JSON value has no invalid values; Invalid
//     then never produces one and rapid reports the property as unable to
//     generate data.
package gen
