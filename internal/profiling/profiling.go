// Package profiling writes a CPU and a heap profile of a whole wirecheck
// process when the environment asks for them, for maintainers measuring
// what a run costs (make bench; docs/official-suite.md): not a flag,
// because it is no part of the CLI's contract.
//
//	WIRECHECK_CPUPROFILE=cpu.out WIRECHECK_MEMPROFILE=mem.out wirecheck run …
//
// The heap profile is taken at the end, after a collection: it shows what
// was allocated over the run (alloc_space). The peak resident set is set
// by the live heap at its largest (the collector lets the heap grow to
// GOGC% above it), so a second profile, the file's name with ".peak",
// is the one of the collection that found the most live (inuse_space).
package profiling

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// The variables naming the files.
const (
	CPUEnv = "WIRECHECK_CPUPROFILE"
	MemEnv = "WIRECHECK_MEMPROFILE"
)

// Start starts the profiles the environment asks for and returns what
// writes them; a file that cannot be written is said on stderr and the
// run goes on.
func Start(stderr io.Writer) (stop func()) {
	cpu, mem := os.Getenv(CPUEnv), os.Getenv(MemEnv)
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(stderr, "wirecheck: %s: %v\n", CPUEnv, err)
		} else {
			cpuFile = f
		}
	}
	if mem != "" {
		// Every 4 KiB rather than 512: a run's live heap is some 15 MiB,
		// which the default rate would tell in some thirty samples.
		runtime.MemProfileRate = 4 << 10
	}
	peak := watchPeak(mem, stderr)
	return func() {
		peak()
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem == "" {
			return
		}
		runtime.GC()
		f, err := os.Create(mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "wirecheck: %s: %v\n", MemEnv, err)
		}
	}
}

// watchPeak looks at the live heap every few milliseconds and keeps the
// heap profile of the largest seen; what it returns stops the watch and
// writes that profile to mem+".peak". Nothing when mem is "".
func watchPeak(mem string, stderr io.Writer) (stop func()) {
	if mem == "" {
		return func() {}
	}
	done, over := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(over)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		var most uint64
		var best bytes.Buffer
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if best.Len() > 0 {
					if err := os.WriteFile(mem+".peak", best.Bytes(), 0o644); err != nil {
						fmt.Fprintf(stderr, "wirecheck: %s: %v\n", MemEnv, err)
					}
				}
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if live := sample[0].Value.Uint64(); live > most {
				most = live
				best.Reset()
				_ = pprof.Lookup("heap").WriteTo(&best, 0)
			}
		}
	}()
	return func() { close(done); <-over }
}
