package gen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kind is a set of JSON value kinds. Integral and fractional numbers are
// separate members because "integer" admits only the first while "number"
// admits both.
type kind uint8

const (
	kNull kind = 1 << iota
	kBool
	kInt
	kFrac
	kString
	kArray
	kObject

	kNumber = kInt | kFrac
	kScalar = kNull | kBool | kNumber | kString
	kAll    = kScalar | kArray | kObject
)

// kindOrder fixes the order in which kinds are offered to rapid, so that
// shrinking moves towards the simpler ones.
var kindOrder = [...]kind{kNull, kBool, kInt, kFrac, kString, kArray, kObject}

func kindsOf(t *jsonschema.Types) kind {
	if t == nil || t.IsEmpty() {
		return kAll
	}
	var k kind
	for _, name := range t.ToStrings() {
		switch name {
		case "null":
			k |= kNull
		case "boolean":
			k |= kBool
		case "integer":
			k |= kInt
		case "number":
			k |= kNumber
		case "string":
			k |= kString
		case "array":
			k |= kArray
		case "object":
			k |= kObject
		}
	}
	return k
}

func kindOf(v any) kind {
	switch v := v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case string:
		return kString
	case []any:
		return kArray
	case map[string]any:
		return kObject
	default:
		r, ok := ratOf(v)
		if !ok {
			return 0
		}
		if r.IsInt() {
			return kInt
		}
		return kFrac
	}
}

// String names a kind set the way a schema author would write it.
func (k kind) String() string {
	var names []string
	if k&kNull != 0 {
		names = append(names, "null")
	}
	if k&kBool != 0 {
		names = append(names, "boolean")
	}
	switch k & kNumber {
	case kNumber:
		names = append(names, "number")
	case kInt:
		names = append(names, "integer")
	case kFrac:
		names = append(names, "fractional number")
	}
	if k&kString != 0 {
		names = append(names, "string")
	}
	if k&kArray != 0 {
		names = append(names, "array")
	}
	if k&kObject != 0 {
		names = append(names, "object")
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

// ratOf reads any numeric representation the validator accepts.
func ratOf(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case json.Number:
		return new(big.Rat).SetString(string(v))
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return new(big.Rat).SetString(fmt.Sprint(v))
	}
	return nil, false
}

// ratNumber renders r as a plain JSON decimal. Every rational the generators
// produce comes from decimal bounds and decimal multipleOf values, so its
// denominator only has factors 2 and 5 and the expansion is exact.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	d := new(big.Int).Set(r.Denom())
	two, five := big.NewInt(2), big.NewInt(5)
	m := new(big.Int)
	count := func(p *big.Int) int {
		n := 0
		for {
			q, rem := new(big.Int).QuoRem(d, p, m)
			if rem.Sign() != 0 {
				return n
			}
			d = q
			n++
		}
	}
	digits := max(count(two), count(five))
	if d.Cmp(big.NewInt(1)) != 0 {
		digits = 40 // not a finite decimal; the caller's validation decides
	}
	s := r.FloatString(digits)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return json.Number(s)
}

// equal is JSON equality as the validator defines it: numbers compare by
// value, so 1 and 1.0 are the same item for uniqueItems and enum.
func equal(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !equal(av, bv) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	case nil:
		return b == nil
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	default:
		ra, ok1 := ratOf(a)
		rb, ok2 := ratOf(b)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	}
}

// valueDepth is the container nesting depth of v.
func valueDepth(v any) int {
	d := 0
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			d = max(d, valueDepth(x))
		}
		return d + 1
	case []any:
		for _, x := range v {
			d = max(d, valueDepth(x))
		}
		return d + 1
	}
	return 0
}

// pointer renders a JSON Pointer for messages; the root gets a phrase
// because "" reads as a typo and "/" is a different pointer.
func pointer(path []string) string {
	if len(path) == 0 {
		return "the root"
	}
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		tok = strings.ReplaceAll(tok, "~", "~0")
		b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
	}
	return b.String()
}
