package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
)

// profiled runs f with the CPU profile written to the file named by
// PGLOCKORDER_CPUPROFILE and the heap profile (taken at the end, after a
// collection, with every allocation since the start) to PGLOCKORDER_MEMPROFILE,
// when set: environment variables rather than flags, as they serve the
// project's own performance work (README, Performance), not its users.
func profiled(stderr io.Writer, f func() int) int {
	if path := os.Getenv("PGLOCKORDER_CPUPROFILE"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(stderr, "pglockorder: CPU profile: %v\n", err)
			return exitError
		}
		defer out.Close() //nolint:errcheck // the profile is flushed by StopCPUProfile, deferred after
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(stderr, "pglockorder: CPU profile: %v\n", err)
			return exitError
		}
		defer pprof.StopCPUProfile()
	}
	code := f()
	if path := os.Getenv("PGLOCKORDER_MEMPROFILE"); path != "" {
		runtime.GC()
		if err := writeHeapProfile(path); err != nil {
			fmt.Fprintf(stderr, "pglockorder: heap profile: %v\n", err)
			return exitError
		}
	}
	return code
}

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := pprof.Lookup("allocs").WriteTo(out, 0); err != nil {
		out.Close() //nolint:errcheck // the write error is the one to report
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	return nil
}
