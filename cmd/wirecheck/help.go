package main

import (
	"embed"
	"strings"
)

// The commands' long help and examples are prose, kept in help/NAME.txt
// (the long text, then "--- example" and the example lines) so this
// package holds flags and wiring.
//
//go:embed help/*.txt
var helpFS embed.FS

// help is a command's "long" text or its "example" lines.
func help(name, part string) string {
	data, err := helpFS.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("help/" + name + ".txt: " + err.Error())
	}
	long, example, _ := strings.Cut(string(data), "--- example\n")
	if part == "example" {
		return strings.TrimRight(example, "\n")
	}
	return strings.TrimRight(long, "\n")
}
