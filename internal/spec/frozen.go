package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// A frozen spec is the value a spec's YAML decodes to (before Parse
// checks it), written in a binary form that reads back some five times
// faster than the YAML parses: the largest embedded spec, 2,600 lines,
// took some 7 ms of every run's CPU to parse. `make frozen` writes one beside each embedded spec
// (specs/<id>.frozen); Load takes it in place of the YAML only when it
// was made from exactly these bytes of YAML by exactly these Go types,
// so a spec edited, or a type changed, since falls back to the YAML (and
// the tests, which hold every embedded frozen spec to its YAML, fail).
// A spec a user hands wirecheck has none: its errors keep their lines.

// frozenMagic begins every frozen spec; the version changes with the
// encoding.
const frozenMagic = "wirecheck frozen spec 1\n"

// FrozenName is the name of the frozen form of a spec file.
func FrozenName(file string) string {
	return strings.TrimSuffix(file, ".yaml") + ".frozen"
}

// frozenSpec is what is frozen: the decoded spec and what Parse keeps of
// the YAML's lines that no exported field holds.
type frozenSpec struct {
	P                  *Protocol
	UnimplementedLines []int
}

// Freeze parses a spec's YAML as Parse does and returns its frozen form.
func Freeze(name string, data []byte) ([]byte, error) {
	p, err := decodeYAML(name, data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(frozenMagic)
	th := typeHash()
	b.Write(th[:])
	yh := sha256.Sum256(data)
	b.Write(yh[:])
	e := freezer{b: &b}
	e.value(reflect.ValueOf(frozenSpec{P: p, UnimplementedLines: p.unimplementedLines}))
	if e.err != nil {
		return nil, e.err
	}
	return b.Bytes(), nil
}

// thaw returns the spec frozen in f when f was made from data by these
// types, else nil. The spec's strings are f's bytes: f is the spec's
// from then on, and no one may write it.
func thaw(f, data []byte) *Protocol {
	rest, ok := bytes.CutPrefix(f, []byte(frozenMagic))
	th := typeHash()
	if !ok || len(rest) < 2*sha256.Size || !bytes.Equal(rest[:sha256.Size], th[:]) {
		return nil
	}
	yh := sha256.Sum256(data)
	if !bytes.Equal(rest[sha256.Size:2*sha256.Size], yh[:]) {
		return nil
	}
	var out frozenSpec
	d := thawer{b: rest[2*sha256.Size:]}
	d.value(reflect.ValueOf(&out).Elem())
	if d.err != nil || len(d.b) != 0 || out.P == nil {
		return nil
	}
	out.P.unimplementedLines = out.UnimplementedLines
	return out.P
}

// typeHash names the Go types a frozen spec was written by: every field's
// name and type, depth first.
var typeHash = sync.OnceValue(func() [sha256.Size]byte {
	var b strings.Builder
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		fmt.Fprintf(&b, "%s;", t)
		if seen[t] {
			return
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if f := t.Field(i); f.IsExported() {
					fmt.Fprintf(&b, "%s:", f.Name)
					walk(f.Type)
				}
			}
		}
	}
	walk(reflect.TypeFor[frozenSpec]())
	return sha256.Sum256([]byte(b.String()))
})

// exported lists the exported fields of a struct type, which are what is
// frozen (asking reflect for each field's export at every value was a
// fifth of thawing).
func exported(t reflect.Type) []int {
	if f, ok := exportedFields.Load(t); ok {
		return f.([]int)
	}
	var f []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			f = append(f, i)
		}
	}
	exportedFields.Store(t, f)
	return f
}

var exportedFields sync.Map // reflect.Type → []int

// The tags of the values an `any` holds, as YAML decodes them.
const (
	anyNil byte = iota
	anyString
	anyInt
	anyUint64
	anyFloat
	anyBool
	anyMap
	anySlice
)

var (
	anyMapType   = reflect.TypeFor[map[string]any]()
	anySliceType = reflect.TypeFor[[]any]()
)

type freezer struct {
	b   *bytes.Buffer
	err error
}

func (e *freezer) uvarint(n uint64) { e.b.Write(binary.AppendUvarint(nil, n)) }

func (e *freezer) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b.WriteString(s)
}

// value writes v: a nil pointer, slice or map as 0 and any other as 1 or
// its length plus one, so that nil and empty read back as they were.
func (e *freezer) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.b.WriteByte(1)
		} else {
			e.b.WriteByte(0)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		e.b.Write(binary.AppendVarint(nil, v.Int()))
	case reflect.Uint64:
		e.uvarint(v.Uint())
	case reflect.Float64:
		e.b.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.Float())))
	case reflect.String:
		e.str(v.String())
	case reflect.Pointer:
		if v.IsNil() {
			e.b.WriteByte(0)
			return
		}
		e.b.WriteByte(1)
		e.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		e.uvarint(uint64(v.Len()) + 1)
		for i := range v.Len() {
			e.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			e.uvarint(0)
			return
		}
		if v.Type().Key().Kind() != reflect.String {
			e.fail(v)
			return
		}
		e.uvarint(uint64(v.Len()) + 1)
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			e.str(k.String())
			e.value(v.MapIndex(k))
		}
	case reflect.Struct:
		for _, i := range exported(v.Type()) {
			e.value(v.Field(i))
		}
	case reflect.Interface:
		e.anyValue(v)
	default:
		e.fail(v)
	}
}

func (e *freezer) anyValue(v reflect.Value) {
	if v.IsNil() {
		e.b.WriteByte(anyNil)
		return
	}
	x := v.Elem()
	switch x.Type() {
	case reflect.TypeFor[string]():
		e.b.WriteByte(anyString)
	case reflect.TypeFor[int]():
		e.b.WriteByte(anyInt)
	case reflect.TypeFor[uint64]():
		e.b.WriteByte(anyUint64)
	case reflect.TypeFor[float64]():
		e.b.WriteByte(anyFloat)
	case reflect.TypeFor[bool]():
		e.b.WriteByte(anyBool)
	case anyMapType:
		e.b.WriteByte(anyMap)
	case anySliceType:
		e.b.WriteByte(anySlice)
	default:
		e.fail(x)
		return
	}
	e.value(x)
}

func (e *freezer) fail(v reflect.Value) {
	if e.err == nil {
		e.err = fmt.Errorf("spec: cannot freeze a %s", v.Type())
	}
}

type thawer struct {
	b   []byte
	err error
}

var errThaw = errors.New("spec: frozen spec cut short")

func (d *thawer) uvarint() uint64 {
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.err = errThaw
		d.b = nil
		return 0
	}
	d.b = d.b[k:]
	return n
}

func (d *thawer) byte1() byte {
	if len(d.b) == 0 {
		d.err = errThaw
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *thawer) str() string {
	n := d.uvarint()
	if uint64(len(d.b)) < n {
		d.err = errThaw
		d.b = nil
		return ""
	}
	if n == 0 {
		return ""
	}
	// The spec's strings share the frozen bytes, which nothing writes
	// (thaw's caller hands them over): one allocation, where a copy of
	// each of some thousands of strings held as many beside it.
	s := unsafe.String(&d.b[0], n)
	d.b = d.b[n:]
	return s
}

// value reads into v what freezer.value wrote of a value of v's type.
func (d *thawer) value(v reflect.Value) {
	if d.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(d.byte1() == 1)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, k := binary.Varint(d.b)
		if k <= 0 {
			d.err = errThaw
			return
		}
		d.b = d.b[k:]
		v.SetInt(n)
	case reflect.Uint64:
		v.SetUint(d.uvarint())
	case reflect.Float64:
		if len(d.b) < 8 {
			d.err = errThaw
			return
		}
		v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(d.b)))
		d.b = d.b[8:]
	case reflect.String:
		v.SetString(d.str())
	case reflect.Pointer:
		if d.byte1() == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.value(p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := d.uvarint()
		if n == 0 {
			return
		}
		if n-1 > uint64(len(d.b)) {
			// Every element takes a byte at least.
			d.err = errThaw
			return
		}
		s := reflect.MakeSlice(v.Type(), int(n-1), int(n-1))
		for i := range int(n - 1) {
			d.value(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		n := d.uvarint()
		if n == 0 {
			return
		}
		if n-1 > uint64(len(d.b)) {
			d.err = errThaw
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), int(n-1))
		for range int(n - 1) {
			k := reflect.New(v.Type().Key()).Elem()
			k.SetString(d.str())
			x := reflect.New(v.Type().Elem()).Elem()
			d.value(x)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Struct:
		for _, i := range exported(v.Type()) {
			d.value(v.Field(i))
		}
	case reflect.Interface:
		var x reflect.Value
		switch d.byte1() {
		case anyNil:
			return
		case anyString:
			x = reflect.New(reflect.TypeFor[string]()).Elem()
		case anyInt:
			x = reflect.New(reflect.TypeFor[int]()).Elem()
		case anyUint64:
			x = reflect.New(reflect.TypeFor[uint64]()).Elem()
		case anyFloat:
			x = reflect.New(reflect.TypeFor[float64]()).Elem()
		case anyBool:
			x = reflect.New(reflect.TypeFor[bool]()).Elem()
		case anyMap:
			x = reflect.New(anyMapType).Elem()
		case anySlice:
			x = reflect.New(anySliceType).Elem()
		default:
			d.err = errThaw
			return
		}
		d.value(x)
		v.Set(x)
	default:
		d.err = fmt.Errorf("spec: cannot thaw a %s", v.Type())
	}
}
