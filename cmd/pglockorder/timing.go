package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// phases times the phases of a run for -v, so that none hides: each mark
// charges the time since the previous one to a phase. The analysis is
// broken down further by the driver (type-checking, summaries) and the lock
// model (parsing and modelling SQL), in time summed over the workers.
type phases struct {
	last  time.Time
	names []string
	times map[string]time.Duration
	// parse, model and summaries break down the analysis phase.
	parse, model, summaries time.Duration
	model0                  time.Duration
	workers                 int
	slowest                 []pkgTime
	// restored counts the packages the per-package cache gave, and
	// restoring is the time that took.
	restored  int
	restoring time.Duration
	// declOnly and starts are the driver's (stats).
	declOnly, starts int
}

func newPhases() *phases {
	return &phases{last: time.Now(), times: map[string]time.Duration{}, model0: lockmodel.ModelTime()}
}

// mark charges the time since the last mark to phase name.
func (p *phases) mark(name string) {
	now := time.Now()
	if _, ok := p.times[name]; !ok {
		p.names = append(p.names, name)
	}
	p.times[name] += now.Sub(p.last)
	p.last = now
}

// analysed records the driver's breakdown of the analysis.
func (p *phases) analysed(st stats, workers int) {
	p.model = lockmodel.ModelTime() - p.model0
	p.parse, p.summaries, p.workers = st.parse, max(st.analysis-p.model, 0), workers
	p.slowest = st.slowest
	p.restored, p.restoring = st.restored, st.restoring
	p.declOnly, p.starts = st.declOnly, st.starts
}

// print writes the phases on one line.
func (p *phases) print(w io.Writer) {
	var parts []string
	for _, n := range p.names {
		s := fmt.Sprintf("%s %v", n, p.times[n].Round(time.Millisecond))
		if n == "analysis" && p.workers > 0 {
			s += fmt.Sprintf(" (on %d workers, summed: parse and type-check %v, SQL model %v, summaries %v; %d packages' results from the per-package cache in %v", p.workers,
				p.parse.Round(time.Millisecond), p.model.Round(time.Millisecond), p.summaries.Round(time.Millisecond), p.restored, p.restoring.Round(time.Millisecond))
			if p.declOnly > 0 {
				s += fmt.Sprintf(", %d packages type-checked without their function bodies", p.declOnly)
			}
			if p.starts > 1 {
				s += fmt.Sprintf(", in %d starts", p.starts)
			}
			s += ")"
		}
		parts = append(parts, s)
	}
	fmt.Fprintf(w, "pglockorder: phases: %s\n", strings.Join(parts, ", "))
	if len(p.slowest) > 0 {
		parts = parts[:0]
		for _, t := range p.slowest {
			parts = append(parts, fmt.Sprintf("%s %v", t.path, t.took.Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "pglockorder: slowest packages to analyse: %s\n", strings.Join(parts, ", "))
	}
}

// workers is the number of packages analysed at once.
func workers() int { return runtime.GOMAXPROCS(0) }
