// Package buildinfo says what a wirecheck binary is: the version stamped
// by the Makefile, else the module version `go install …@v1.2.3` records,
// and the VCS revision the Go toolchain stamps into the build, so a
// report or a bug report names the exact code that judged.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info is what a binary knows of itself.
type Info struct {
	// Version is the release ("v1.2.0"), a `git describe` string, or
	// "dev" for a build of a checkout without either.
	Version string
	// Revision is the VCS commit ("" when the build has none: -buildvcs=false,
	// a module download), with Modified when the tree had local changes.
	Revision string
	Time     string
	Modified bool
	// Go is the toolchain that built it.
	Go string
}

// Read returns the binary's Info. stamped is what -ldflags
// "-X main.version=…" set ("" or "dev" when nothing was).
func Read(stamped string) Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Version: orDev(stamped)}
	}
	return From(stamped, bi)
}

// From is Read on given build information (tests hand it their own).
func From(stamped string, bi *debug.BuildInfo) Info {
	in := Info{Version: stamped, Go: bi.GoVersion}
	if in.Version == "" || in.Version == "dev" {
		// `go install module@version` records the version; a build in a
		// checkout records "(devel)", which says nothing.
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		}
	}
	in.Version = orDev(in.Version)
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			in.Revision = s.Value
		case "vcs.time":
			in.Time = s.Value
		case "vcs.modified":
			in.Modified = s.Value == "true"
		}
	}
	return in
}

func orDev(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// String is the one line `wirecheck version` prints and reports carry:
// "v1.2.0 (rev 0123abcd4567, 2026-11-26T12:00:00Z, modified; go1.26.0)".
func (in Info) String() string {
	var extra []string
	if in.Revision != "" {
		extra = append(extra, "rev "+short(in.Revision))
	}
	if in.Time != "" {
		extra = append(extra, in.Time)
	}
	if in.Modified {
		extra = append(extra, "modified")
	}
	s := in.Version
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ")
		if in.Go != "" {
			s += "; " + in.Go
		}
		s += ")"
	} else if in.Go != "" {
		s += " (" + in.Go + ")"
	}
	return s
}

func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
