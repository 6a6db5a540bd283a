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

func word(t *rapid.T, alphabet []rune, lo, hi int, label string) string {
	return rapid.StringOfN(rapid.RuneFrom(alphabet), lo, hi, -1).Draw(t, label)
}

func genDate(t *rapid.T) string {
	y := rapid.IntRange(1970, 2099).Draw(t, "year")
	m := rapid.IntRange(1, 12).Draw(t, "month")
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	d := rapid.IntRange(1, days).Draw(t, "day")
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

func genTime(t *rapid.T) string {
	s := fmt.Sprintf("%02d:%02d:%02d",
		rapid.IntRange(0, 23).Draw(t, "hour"),
		rapid.IntRange(0, 59).Draw(t, "minute"),
		rapid.IntRange(0, 59).Draw(t, "second"))
	if rapid.Bool().Draw(t, "fraction") {
		s += "." + word(t, []rune("0123456789"), 1, 6, "fraction digits")
	}
	switch rapid.IntRange(0, 2).Draw(t, "offset") {
	case 0:
		return s + "Z"
	case 1:
		return s + fmt.Sprintf("+%02d:%02d", rapid.IntRange(0, 14).Draw(t, "tz hour"), rapid.IntRange(0, 59).Draw(t, "tz minute"))
	default:
		return s + fmt.Sprintf("-%02d:%02d", rapid.IntRange(0, 12).Draw(t, "tz hour"), rapid.IntRange(0, 59).Draw(t, "tz minute"))
	}
}

func genDateTime(t *rapid.T) string {
	return genDate(t) + "T" + genTime(t)
}

func genDuration(t *rapid.T) string {
	num := func(label string) string { return strconv.Itoa(rapid.IntRange(0, 99).Draw(t, label)) }
	if rapid.IntRange(0, 4).Draw(t, "weeks") == 0 {
		return "P" + num("W") + "W"
	}
	var b strings.Builder
	b.WriteString("P")
	for _, u := range "YMD" {
		if rapid.Bool().Draw(t, string(u)) {
			b.WriteString(num(string(u)) + string(u))
		}
	}
	var tb strings.Builder
	for _, u := range "HMS" {
		if rapid.Bool().Draw(t, string(u)) {
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
	switch rapid.IntRange(0, 2).Draw(t, "period") {
	case 0:
		return genDateTime(t) + "/" + genDateTime(t)
	case 1:
		return genDateTime(t) + "/" + genDuration(t)
	default:
		return genDuration(t) + "/" + genDateTime(t)
	}
}

func genHostname(t *rapid.T) string {
	n := rapid.IntRange(1, 3).Draw(t, "labels")
	labels := make([]string, n)
	for i := range labels {
		labels[i] = word(t, lower, 1, 1, "label start")
		if rapid.Bool().Draw(t, "long label") {
			labels[i] += word(t, append([]rune("-"), lowerDigit...), 0, 6, "label") + word(t, lowerDigit, 1, 1, "label end")
		}
	}
	return strings.Join(labels, ".")
}

func genEmail(t *rapid.T) string {
	local := word(t, lowerDigit, 1, 8, "local")
	if rapid.Bool().Draw(t, "dotted") {
		local += "." + word(t, lowerDigit, 1, 4, "local")
	}
	return local + "@" + genHostname(t)
}

func genIPv4(t *rapid.T) string {
	var p [4]string
	for i := range p {
		p[i] = strconv.Itoa(rapid.IntRange(0, 255).Draw(t, "octet"))
	}
	return strings.Join(p[:], ".")
}

func genIPv6(t *rapid.T) string {
	var a [16]byte
	for i := range a {
		a[i] = byte(rapid.IntRange(0, 255).Draw(t, "byte"))
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
	for range rapid.IntRange(0, 3).Draw(t, "segments") {
		b.WriteString("/" + word(t, lowerDigit, 1, 6, "segment"))
	}
	return b.String()
}

func genURI(t *rapid.T) string {
	switch rapid.IntRange(0, 3).Draw(t, "scheme") {
	case 0:
		return "urn:" + word(t, lower, 1, 6, "nid") + ":" + word(t, lowerDigit, 1, 8, "nss")
	case 1:
		return "file://" + genPath(t) + "/" + word(t, lowerDigit, 1, 6, "file")
	}
	u := []string{"https://", "http://"}[rapid.IntRange(0, 1).Draw(t, "web")] + genHostname(t) + genPath(t)
	if rapid.Bool().Draw(t, "query") {
		u += "?" + word(t, lower, 1, 4, "key") + "=" + word(t, lowerDigit, 0, 6, "value")
	}
	return u
}

func genURIReference(t *rapid.T) string {
	switch rapid.IntRange(0, 3).Draw(t, "reference") {
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
	base := []string{"https://" + genHostname(t), ""}[rapid.IntRange(0, 1).Draw(t, "absolute")]
	var b strings.Builder
	b.WriteString(base)
	for range rapid.IntRange(1, 3).Draw(t, "segments") {
		if rapid.Bool().Draw(t, "variable") {
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
			b.WriteByte(hex[rapid.IntRange(0, 15).Draw(t, "hex")])
		}
	}
	return b.String()
}

func genJSONPointer(t *rapid.T) string {
	var b strings.Builder
	for range rapid.IntRange(0, 3).Draw(t, "tokens") {
		b.WriteString("/" + word(t, lowerDigit, 0, 5, "token"))
		switch rapid.IntRange(0, 3).Draw(t, "escape") {
		case 1:
			b.WriteString("~0")
		case 2:
			b.WriteString("~1")
		}
	}
	return b.String()
}

func genRelativeJSONPointer(t *rapid.T) string {
	up := strconv.Itoa(rapid.IntRange(0, 5).Draw(t, "up"))
	if rapid.Bool().Draw(t, "hash") {
		return up + "#"
	}
	return up + genJSONPointer(t)
}

var sampleRegexes = []string{`^[a-z]+$`, `\d{3}-\d{4}`, `a|b`, `.*`, `^$`, `(foo)?bar`, `[^/]+`, `\w+@\w+`}

func genRegex(t *rapid.T) string {
	return rapid.SampledFrom(sampleRegexes).Draw(t, "regex")
}

func genSemver(t *rapid.T) string {
	n := func(label string) string { return strconv.Itoa(rapid.IntRange(0, 20).Draw(t, label)) }
	v := n("major") + "." + n("minor") + "." + n("patch")
	if rapid.Bool().Draw(t, "prerelease") {
		v += "-" + word(t, lower, 1, 5, "pre") + "." + n("pre number")
	}
	if rapid.Bool().Draw(t, "build") {
		v += "+" + word(t, lowerDigit, 1, 6, "build")
	}
	return v
}
