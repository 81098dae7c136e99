package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// baselineVersion is the version of the baseline file's format.
const baselineVersion = 1

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
	// Posn and Headline describe the finding when the baseline was
	// written; they are not compared.
	Posn     string `json:"posn"`
	Headline string `json:"headline"`
}

// writeBaselineFile records findings as accepted.
func writeBaselineFile(name string, findings []finding) error {
	b := baselineFile{Version: baselineVersion, Findings: []baselineEntry{}}
	for _, f := range findings {
		b.Findings = append(b.Findings, baselineEntry{
			Fingerprint: fingerprint(f),
			Category:    f.Category,
			Posn:        f.Posn,
			Headline:    headline(f.Message),
		})
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
// accepted, and how many of its entries matched nothing (fixed since). Each
// entry accepts one finding: a second finding with the same fingerprint is
// new. (The same inversion copied into a new function has another
// fingerprint: its function differs.)
func (b *baselineFile) filter(findings []finding) (out []finding, known, gone int) {
	left := map[string]int{}
	for _, e := range b.Findings {
		left[e.Fingerprint]++
	}
	for _, f := range findings {
		fp := fingerprint(f)
		if left[fp] > 0 {
			left[fp]--
			known++
			continue
		}
		out = append(out, f)
	}
	for _, n := range left {
		gone += n
	}
	return out, known, gone
}
