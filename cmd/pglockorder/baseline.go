package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
)

// baselineVersion is the version of the baseline file's format. Version 2
// identifies a cycle by the path it is reported by (one report per
// breaker): version 1 fingerprints no longer match.
const baselineVersion = 2

// baselineFile is a baseline: the findings a team has accepted, by
// fingerprint (see fingerprint), with where and what each was when it was
// written, for people reading the file.
type baselineFile struct {
	Version  int             `json:"version"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Category    string `json:"category"`
	// Breaker identifies the path a cycle is reported by (see
	// breakerKey), and Paths the functions that were on its other side:
	// the same breaker with only some of those paths is still accepted,
	// and the entry stays known while its breaker is reported.
	Breaker string   `json:"breaker,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	// Posn and Headline describe the finding when the baseline was
	// written; they are not compared.
	Posn     string `json:"posn"`
	Headline string `json:"headline"`
}

// writeBaselineFile records findings as accepted.
func writeBaselineFile(name string, findings []finding) error {
	b := baselineFile{Version: baselineVersion, Findings: []baselineEntry{}}
	for _, f := range findings {
		e := baselineEntry{
			Fingerprint: fingerprint(f),
			Category:    f.Category,
			Breaker:     breakerKey(f),
			Posn:        f.Posn,
			Headline:    headline(f.Message),
		}
		if f.cycle != nil {
			e.Paths = f.cycle.OtherFuncs()
		}
		b.Findings = append(b.Findings, e)
	}
	sort.SliceStable(b.Findings, func(i, j int) bool { return b.Findings[i].Fingerprint < b.Findings[j].Fingerprint })
	data, err := json.MarshalIndent(b, "", "\t")
	if err != nil {
		return fmt.Errorf("encoding the baseline: %w", err)
	}
	if err := os.WriteFile(name, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the baseline: %w", err)
	}
	return nil
}

// readBaselineFile reads a baseline written by writeBaselineFile.
func readBaselineFile(name string) (*baselineFile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("reading the baseline: %w", err)
	}
	var b baselineFile
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("reading the baseline %s: %w", name, err)
	}
	if b.Version != baselineVersion {
		return nil, fmt.Errorf("baseline %s: version %d, want %d (write it again with -write-baseline)", name, b.Version, baselineVersion)
	}
	for i, e := range b.Findings {
		if e.Fingerprint == "" {
			return nil, fmt.Errorf("baseline %s: finding %d has no fingerprint", name, i+1)
		}
	}
	return &b, nil
}

// filter returns the findings the baseline does not accept, how many it
// accepted, and how many of its entries matched nothing (fixed since).
//
// A finding is accepted by an entry with its fingerprint, or, for a cycle,
// by an entry with its breaker whose paths include all of the finding's (a
// path on the other side was fixed; the inversion was accepted). A new path
// on either side makes a new finding. Each entry accepts one finding: a
// second finding with the same fingerprint is new. (The same inversion
// copied into a new function has another breaker: its function differs.)
// An entry is fixed only when nothing it describes is reported: a breaker
// still reported keeps its entry, accepted or not.
func (b *baselineFile) filter(findings []finding) (out []finding, known, gone int) {
	used := make([]bool, len(b.Findings))
	reportedBreakers := map[string]bool{}
	accept := func(f finding) bool {
		fp, bk := fingerprint(f), breakerKey(f)
		for i, e := range b.Findings {
			if !used[i] && e.Fingerprint == fp {
				used[i] = true
				return true
			}
		}
		if bk == "" {
			return false
		}
		for i, e := range b.Findings {
			if !used[i] && e.Breaker == bk && isSubset(f.cycle.OtherFuncs(), e.Paths) {
				used[i] = true
				return true
			}
		}
		return false
	}
	for _, f := range findings {
		if bk := breakerKey(f); bk != "" {
			reportedBreakers[bk] = true
		}
		if accept(f) {
			known++
			continue
		}
		out = append(out, f)
	}
	for i, e := range b.Findings {
		if !used[i] && (e.Breaker == "" || !reportedBreakers[e.Breaker]) {
			gone++
		}
	}
	return out, known, gone
}

// isSubset reports whether every element of a is in b.
func isSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
