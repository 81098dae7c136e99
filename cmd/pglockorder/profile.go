package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"
)

// profiled runs f with the CPU profile written to the file named by
// PGLOCKORDER_CPUPROFILE and the heap profile (taken at the end, after a
// collection, with every allocation since the start) to PGLOCKORDER_MEMPROFILE,
// when set, and the heap profile at the run's largest live heap to
// PGLOCKORDER_PEAKPROFILE: environment variables rather than flags, as they
// serve the project's own performance work (README, Performance), not its
// users.
func profiled(stderr io.Writer, f func() int) int {
	if path := os.Getenv("PGLOCKORDER_PEAKPROFILE"); path != "" {
		stop := watchPeak(stderr, path)
		defer stop()
	}
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
		if err := writeProfile(path, "allocs"); err != nil {
			fmt.Fprintf(stderr, "pglockorder: heap profile: %v\n", err)
			return exitError
		}
	}
	return code
}

// writeProfile writes the named profile ("allocs" or "heap") to path.
func writeProfile(path, name string) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating %s: %w", path, err)
	}
	if err := pprof.Lookup(name).WriteTo(out, 0); err != nil {
		out.Close() //nolint:errcheck // the write error is the one to report
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	return nil
}

// watchPeak samples the live heap every few milliseconds and writes the
// heap profile to path each time the live heap has grown by a tenth since
// the last profile, until stop is called: the last profile written is the
// one nearest the peak. It shows what was live, not what was garbage; the
// collections it forces slow the run down.
func watchPeak(stderr io.Writer, path string) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(finished)
		var written uint64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			live := sample[0].Value.Uint64()
			if live < written+written/10 || live < 16<<20 {
				continue
			}
			// A heap profile is that of the collection before the
			// last; two more make it today's.
			runtime.GC()
			runtime.GC()
			metrics.Read(sample)
			written = sample[0].Value.Uint64()
			if err := writeProfile(path, "heap"); err != nil {
				fmt.Fprintf(stderr, "pglockorder: peak heap profile: %v\n", err)
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
