package gen

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"pgregory.net/rapid"
)

// formatGens produce strings the jsonschema v6 format validators accept.
// Keys are the format names that library asserts.
var formatGens = map[string]func(*rapid.T) string{
	"date":                  genDate,
	"time":                  genTime,
	"date-time":             genDateTime,
	"duration":              genDuration,
	"period":                genPeriod,
	"email":                 genEmail,
	"hostname":              genHostname,
	"ipv4":                  genIPv4,
	"ipv6":                  genIPv6,
	"uri":                   genURI,
	"iri":                   genURI,
	"uri-reference":         genURIReference,
	"iri-reference":         genURIReference,
	"uri-template":          genURITemplate,
	"uuid":                  genUUID,
	"json-pointer":          genJSONPointer,
	"relative-json-pointer": genRelativeJSONPointer,
	"regex":                 genRegex,
	"semver":                genSemver,
}

var (
	lower      = []rune("abcdefghijklmnopqrstuvwxyz")
	lowerDigit = []rune("abcdefghijklmnopqrstuvwxyz0123456789")
)

func word(t *rapid.T, alphabet []rune, lo, hi int, _ string) string {
	return text(t, lo, hi, alphabet, false)
}

func genDate(t *rapid.T) string {
	y := intIn(t, 1970, 2099, "year")
	m := intIn(t, 1, 12, "month")
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	d := intIn(t, 1, days, "day")
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

func genTime(t *rapid.T) string {
	s := fmt.Sprintf("%02d:%02d:%02d",
		intIn(t, 0, 23, "hour"),
		intIn(t, 0, 59, "minute"),
		intIn(t, 0, 59, "second"))
	if boolGen.Draw(t, "fraction") {
		s += "." + word(t, []rune("0123456789"), 1, 6, "fraction digits")
	}
	switch intIn(t, 0, 2, "offset") {
	case 0:
		return s + "Z"
	case 1:
		return s + fmt.Sprintf("+%02d:%02d", intIn(t, 0, 14, "tz hour"), intIn(t, 0, 59, "tz minute"))
	default:
		return s + fmt.Sprintf("-%02d:%02d", intIn(t, 0, 12, "tz hour"), intIn(t, 0, 59, "tz minute"))
	}
}

func genDateTime(t *rapid.T) string {
	return genDate(t) + "T" + genTime(t)
}

func genDuration(t *rapid.T) string {
	num := func(label string) string { return strconv.Itoa(intIn(t, 0, 99, label)) }
	if intIn(t, 0, 4, "weeks") == 0 {
		return "P" + num("W") + "W"
	}
	var b strings.Builder
	b.WriteString("P")
	for _, u := range "YMD" {
		if boolGen.Draw(t, string(u)) {
			b.WriteString(num(string(u)) + string(u))
		}
	}
	var tb strings.Builder
	for _, u := range "HMS" {
		if boolGen.Draw(t, string(u)) {
			tb.WriteString(num(string(u)) + string(u))
		}
	}
	if tb.Len() > 0 {
		b.WriteString("T" + tb.String())
	}
	if b.Len() == 1 {
		b.WriteString(num("D") + "D")
	}
	return b.String()
}

func genPeriod(t *rapid.T) string {
	switch intIn(t, 0, 2, "period") {
	case 0:
		return genDateTime(t) + "/" + genDateTime(t)
	case 1:
		return genDateTime(t) + "/" + genDuration(t)
	default:
		return genDuration(t) + "/" + genDateTime(t)
	}
}

func genHostname(t *rapid.T) string {
	n := intIn(t, 1, 3, "labels")
	labels := make([]string, n)
	for i := range labels {
		labels[i] = word(t, lower, 1, 1, "label start")
		if boolGen.Draw(t, "long label") {
			labels[i] += word(t, append([]rune("-"), lowerDigit...), 0, 6, "label") + word(t, lowerDigit, 1, 1, "label end")
		}
	}
	return strings.Join(labels, ".")
}

func genEmail(t *rapid.T) string {
	local := word(t, lowerDigit, 1, 8, "local")
	if boolGen.Draw(t, "dotted") {
		local += "." + word(t, lowerDigit, 1, 4, "local")
	}
	return local + "@" + genHostname(t)
}

func genIPv4(t *rapid.T) string {
	var p [4]string
	for i := range p {
		p[i] = strconv.Itoa(intIn(t, 0, 255, "octet"))
	}
	return strings.Join(p[:], ".")
}

func genIPv6(t *rapid.T) string {
	var a [16]byte
	for i := range a {
		a[i] = byte(intIn(t, 0, 255, "byte"))
	}
	addr := netip.AddrFrom16(a)
	if addr.Is4In6() {
		// Rendered as ::ffff:1.2.3.4, still valid, but keep plain groups.
		a[10] = 0
		addr = netip.AddrFrom16(a)
	}
	return addr.String()
}

func genPath(t *rapid.T) string {
	var b strings.Builder
	for range intIn(t, 0, 3, "segments") {
		b.WriteString("/" + word(t, lowerDigit, 1, 6, "segment"))
	}
	return b.String()
}

func genURI(t *rapid.T) string {
	switch intIn(t, 0, 3, "scheme") {
	case 0:
		return "urn:" + word(t, lower, 1, 6, "nid") + ":" + word(t, lowerDigit, 1, 8, "nss")
	case 1:
		return "file://" + genPath(t) + "/" + word(t, lowerDigit, 1, 6, "file")
	}
	u := []string{"https://", "http://"}[intIn(t, 0, 1, "web")] + genHostname(t) + genPath(t)
	if boolGen.Draw(t, "query") {
		u += "?" + word(t, lower, 1, 4, "key") + "=" + word(t, lowerDigit, 0, 6, "value")
	}
	return u
}

func genURIReference(t *rapid.T) string {
	switch intIn(t, 0, 3, "reference") {
	case 0:
		return genURI(t)
	case 1:
		return genPath(t)
	case 2:
		return word(t, lowerDigit, 1, 6, "relative") + genPath(t)
	default:
		return "#" + word(t, lowerDigit, 0, 6, "fragment")
	}
}

func genURITemplate(t *rapid.T) string {
	base := []string{"https://" + genHostname(t), ""}[intIn(t, 0, 1, "absolute")]
	var b strings.Builder
	b.WriteString(base)
	for range intIn(t, 1, 3, "segments") {
		if boolGen.Draw(t, "variable") {
			b.WriteString("/{" + word(t, lower, 1, 6, "variable") + "}")
		} else {
			b.WriteString("/" + word(t, lowerDigit, 1, 6, "segment"))
		}
	}
	return b.String()
}

func genUUID(t *rapid.T) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i, n := range []int{8, 4, 4, 4, 12} {
		if i > 0 {
			b.WriteByte('-')
		}
		for range n {
			b.WriteByte(hex[intIn(t, 0, 15, "hex")])
		}
	}
	return b.String()
}

func genJSONPointer(t *rapid.T) string {
	var b strings.Builder
	for range intIn(t, 0, 3, "tokens") {
		b.WriteString("/" + word(t, lowerDigit, 0, 5, "token"))
		switch intIn(t, 0, 3, "escape") {
		case 1:
			b.WriteString("~0")
		case 2:
			b.WriteString("~1")
		}
	}
	return b.String()
}

func genRelativeJSONPointer(t *rapid.T) string {
	up := strconv.Itoa(intIn(t, 0, 5, "up"))
	if boolGen.Draw(t, "hash") {
		return up + "#"
	}
	return up + genJSONPointer(t)
}

var sampleRegexes = []string{`^[a-z]+$`, `\d{3}-\d{4}`, `a|b`, `.*`, `^$`, `(foo)?bar`, `[^/]+`, `\w+@\w+`}

func genRegex(t *rapid.T) string {
	return rapid.SampledFrom(sampleRegexes).Draw(t, "regex")
}

func genSemver(t *rapid.T) string {
	n := func(label string) string { return strconv.Itoa(intIn(t, 0, 20, label)) }
	v := n("major") + "." + n("minor") + "." + n("patch")
	if boolGen.Draw(t, "prerelease") {
		v += "-" + word(t, lower, 1, 5, "pre") + "." + n("pre number")
	}
	if boolGen.Draw(t, "build") {
		v += "+" + word(t, lowerDigit, 1, 6, "build")
	}
	return v
}
