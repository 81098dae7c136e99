package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// autoSchema returns the schema flag's value when -schema is not given:
// the configuration's schema: of a main module (a path relative to the
// file, or none), else "auto=" and the main modules' roots, whose
// migrations the lock model then finds in their conventional places.
func autoSchema(pkgs []*packages.Package) (string, error) {
	roots := map[string]bool{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Module != nil && p.Module.Main && p.Module.Dir != "" {
			roots[p.Module.Dir] = true
		}
	})
	dirs := slices.Sorted(func(yield func(string) bool) {
		for r := range roots {
			if !yield(r) {
				return
			}
		}
	})
	if len(dirs) == 0 {
		return "none", nil
	}
	for _, dir := range dirs {
		cfg, err := analyzer.ModuleConfig(dir)
		if err != nil {
			return "", err
		}
		if cfg == nil || cfg.Schema == "" {
			continue
		}
		if cfg.Schema == "none" || filepath.IsAbs(cfg.Schema) {
			return cfg.Schema, nil
		}
		return filepath.Join(filepath.Dir(cfg.File), cfg.Schema), nil
	}
	return "auto=" + strings.Join(dirs, string(os.PathListSeparator)), nil
}

// schemaSources lists the files the schema was read from, for -v.
func schemaSources() []lockmodel.SchemaSource {
	if f := analyzer.Analyzer.Flags.Lookup("schema"); f != nil {
		if sf, ok := f.Value.(*lockmodel.SchemaFlag); ok {
			return sf.Sources()
		}
	}
	return nil
}
