// Package gen derives rapid generators of JSON values from compiled JSON
// Schemas (github.com/santhosh-tekuri/jsonschema/v6), so that the harness can
// fuzz a peer with well-formed messages, probe it with malformed ones, and
// call tools with arguments built from the inputSchema the server itself
// advertised. Draft-07, 2019-09 and 2020-12 schemas are supported.
//
// # Value representation
//
// Generated values have the shape that jsonschema.UnmarshalJSON (and
// encoding/json with Decoder.UseNumber) produces, because that is what
// (*jsonschema.Schema).Validate is written against and it round-trips
// through encoding/json unchanged:
//
//	object  map[string]any
//	array   []any
//	string  string
//	number  json.Number, a plain decimal without exponent
//	boolean bool
//	null    nil
//
// json.Number rather than float64 keeps multipleOf and large integer bounds
// exact; binary floating point would produce values the validator rejects
// (0.1+0.2 is not a multiple of 0.1) or cannot tell apart (2^53+1).
// Values never share memory with the schema or with each other.
//
// # Entry points
//
//   - [Valid], [ValidWith]: values that validate against the schema.
//   - [Invalid], [InvalidWith]: a valid value with one keyword violated at
//     one location, plus a sentence saying what was broken. Every value
//     fails validation.
//   - [Example], [TryExample]: one deterministic valid value per seed, for
//     callers without a *rapid.T.
//   - [Compile]: compile a standalone schema document received as bytes.
//
// Generators hold no mutable state and may be drawn from concurrently.
//
// # Defaults
//
// The zero [Options] means: free text of at most 16 characters, arrays of
// at most 4 items, at most 2 properties the schema does not name, container
// nesting depth 5, and 10000 sub-value attempts per top-level value. The
// schema's own minimums (minLength, minItems, minProperties, required)
// always win over these caps, and structure the schema requires is built
// even past the depth limit; past it only optional parts are left out.
//
// # How values are built
//
// Keywords are not interpreted one schema at a time. At each instance
// location the generator collects the conjunction of every schema that
// applies there ($ref, $dynamicRef and $recursiveRef targets, allOf
// members, one chosen branch of each anyOf and oneOf, one side of
// if/then/else) and builds a value satisfying all of them at once: type
// sets are intersected, numeric bounds tightened, multipleOf values
// combined by least common multiple, string lengths and patterns merged,
// properties, patternProperties, additionalProperties and items merged per
// name and position, enum and const filtered against everything else.
// Keywords that construction cannot guarantee (oneOf exclusivity, not,
// dependentSchemas, unevaluatedProperties/Items, maxContains, $dynamicRef
// overrides) are enforced by validating the candidate and retrying, locally
// first and then through rapid, so shrinking stays meaningful. Valid also
// validates every value it returns, as a last line of defence.
//
// Strings for a pattern are produced by walking the pattern's
// regexp/syntax tree (character classes favour printable ASCII, quantifiers
// stretch to reach minLength), then checked against the real regexp and
// padded to minLength where the anchors allow. Property names for
// patternProperties and propertyNames are generated the same way.
//
// Recursive schemas terminate because every schema is annotated with the
// minimum nesting depth of any value it accepts; past Options.MaxDepth the
// generator only picks branches, types and properties whose minimum fits.
//
// # Formats
//
// format only constrains values when the compiler asserts it: always for
// draft-07, and for 2019-09 and 2020-12 only when the compiler was told to
// (as [Compile] does); otherwise the compiled schema does not even record
// the format. Generated strings honour date-time, date, time, duration,
// period, email, hostname, ipv4, ipv6, uri, iri, uri-reference,
// iri-reference, uri-template, uuid, json-pointer, relative-json-pointer,
// regex and semver. Formats the validator does not know (MCP uses "byte")
// are not asserted and get ordinary strings; custom formats registered on
// a compiler get ordinary strings filtered by the format's validator.
//
// # Not supported, and why
//
//   - $dynamicRef and $recursiveRef are followed to their static target.
//     Resolving the dynamic scope would mean re-implementing the
//     validator's scope tracking; overrides are still honoured through
//     validation and retry.
//   - contentEncoding, contentMediaType and contentSchema are only
//     asserted when a compiler opts in (Compile does not); such values are
//     found by filtering, not built.
//   - Conflicts between keywords are not solved, only retried: a schema
//     whose valid values are rare among what the merged keywords suggest
//     (say, a pattern and a format that seldom agree) can exhaust the
//     attempt budget. Valid then makes rapid report that it cannot
//     generate data, and TryExample returns an error; the same happens for
//     unsatisfiable schemas.
//   - A schema that accepts every JSON value has no invalid values, so
//     Invalid never produces one for it.
package gen
