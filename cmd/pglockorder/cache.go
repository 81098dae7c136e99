package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/pglockorder/pglockorder/analyzer"
	"github.com/pglockorder/pglockorder/internal/findings"
	"github.com/pglockorder/pglockorder/internal/lockgraph"
	"github.com/pglockorder/pglockorder/internal/lockmodel"
	"github.com/pglockorder/pglockorder/internal/lockseq"
)

// The result cache lets a run on unchanged code skip the analysis, as go
// vet replays its cached results: a pre-commit hook or an editor re-running
// pglockorder pays for `go list` and a hash of the sources only.
//
// What is cached is what the analysis of all packages hands to the
// whole-program stage (edges, ordered locks, temporary tables, per-package
// findings and ignore directives), not the output: cycles, formats,
// baselines, graphs and reproducers are computed from it as on a fresh run.
//
// The key covers everything the analysis reads: the pglockorder binary
// itself, the analyzer's flags and the load options, every package's
// identity (exports.go: a hash of its files and of its imports' identities,
// embedded files included), the declared-order file and the schema.

// cacheEnv names the environment variable that moves the cache ("off"
// turns it off).
const cacheEnv = "PGLOCKORDER_CACHE"

// cacheVersion changes when the cached data's shape does.
const cacheVersion = "pglockorder-results-v15"

// maxCacheEntries bounds the cache: the oldest entries beyond it go.
const maxCacheEntries = 16

// cachedResults is what the analysis of all packages produced.
type cachedResults struct {
	// Edges are kept in a file of their own, read only when the graph
	// itself is printed (-graph, -suggest-order): on a big program they
	// are most of the entry, and the findings need only the cycles.
	Edges     lockgraph.EdgeList
	EdgeCount int
	// pending are the edges of the parts added, decoded into Edges
	// once the analysis is over (unpackEdges).
	pending  []packedEdges
	Ordered  []lockseq.OrderedLock
	Temps    []string
	Findings []findings.Finding // those of each package alone (analyzer.PackageFindings)
	// lent names the lent row findings that calls in some package judged
	// again: withdrawn from Findings once every package is in.
	lent    map[string]bool
	Ignores []findings.Directive
	Skipped []lockseq.Skip // SQL not analysed, counted at the end of the run
	Locked  []string       // names of the locked classes, for the declared order's names
	// Warnings are the analysis bounds reached (limitWarnings).
	Warnings []string
	// Dispatch counts the calls through interfaces and how they were
	// resolved; ImplDeps and ImplGroups how the schedule ordered
	// packages after the implementations they call (for -v).
	Dispatch   lockseq.DispatchStats
	ImplDeps   int
	ImplGroups [][]string
	// ImplReused counts the second rounds that were not needed.
	ImplReused int
	// SQL counts the SQL found, parsed and skipped, Graph the lock graph
	// and what -graph draws of it, and Dialects says which packages were
	// not analysed as PostgreSQL (for -v: a cached run prints what the
	// run that stored it printed).
	SQL      sqlCounts
	Graph    graphCounts
	Dialects analyzer.DialectReport
	// Cycles and Truncated are the cycle search's result over Edges
	// (the search depth is an analyzer flag, part of the key): on a big
	// graph the search costs more than everything else on a cached run.
	Cycles    []*lockgraph.Cycle
	Truncated bool
}

// resultCache is the cache directory, or "" when caching is off.
type resultCache struct {
	dir string
}

// openCache returns the cache selected by the -cache flag and
// PGLOCKORDER_CACHE: a directory of its own under the user's cache
// directory unless the variable names one; none when either says off or no
// cache directory exists.
func openCache(enabled bool) resultCache {
	if !enabled {
		return resultCache{}
	}
	switch v := os.Getenv(cacheEnv); v {
	case "off", "0", "false":
		return resultCache{}
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return resultCache{}
		}
		return resultCache{dir: filepath.Join(base, "pglockorder")}
	default:
		return resultCache{dir: v}
	}
}

// key hashes the inputs of the analysis of pkgs; ok is false when an input
// cannot be read, which makes the run uncacheable.
func (c resultCache) key(pkgs []*packages.Package, ids *identities, cfg *packages.Config, patterns []string) (key, env string, ok bool) {
	if c.dir == "" || ids == nil {
		return "", "", false
	}
	// env hashes what every package's result depends on besides its own
	// inputs: the per-package cache's part of its keys (pkgcache.go).
	h, he := sha256.New(), sha256.New()
	both := io.MultiWriter(h, he)
	fmt.Fprintf(both, "%s\x00", cacheVersion)
	exe, err := os.Executable()
	if err != nil || hashFile(both, exe) != nil {
		return "", "", false
	}
	analyzer.Analyzer.Flags.VisitAll(func(f *flag.Flag) {
		if f.Name == "debug" {
			// It prints more and changes no result; in the key, a
			// -debug run, whose job is to say why a package was
			// analysed again, could never find a run's entries.
			return
		}
		fmt.Fprintf(both, "flag %s=%s\x00", f.Name, f.Value)
	})
	fmt.Fprintf(both, "tests=%t build=%q\x00", cfg.Tests, cfg.BuildFlags)
	// The build configuration that no file list shows: the go
	// command's settings (the environment's, and those of go env -w);
	// without them the target is the machine's, which the binary
	// hashed above is built for.
	for _, v := range goSettings {
		fmt.Fprintf(both, "%s=%q\x00", v, os.Getenv(v))
	}
	if name, err := goEnvFile(); err == nil {
		fmt.Fprintf(both, "goenv %s\x00", name)
		_ = hashFile(both, name) // none is a setting too
	}
	fmt.Fprintf(h, "patterns=%q\x00", patterns)
	ok = true
	roots := map[*packages.Package]bool{}
	for _, p := range pkgs {
		roots[p] = true
	}
	modules := map[string]bool{}
	var all []*packages.Package
	packages.Visit(pkgs, nil, func(p *packages.Package) { all = append(all, p) })
	slices.SortFunc(all, func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) })
	for _, p := range all {
		// Its identity covers its files, embedded ones included, and
		// everything it imports (exports.go).
		fmt.Fprintf(h, "pkg %s %s root=%t\x00", p.ID, ids.of[p], roots[p])
		if p.Module != nil && p.Module.Main {
			modules[p.Module.Dir] = true
		}
	}
	// The declared order at each main module's root, and the schema.
	config := ""
	if f := analyzer.Analyzer.Flags.Lookup("config"); f != nil {
		config = f.Value.String()
	}
	for _, dir := range slices.Sorted(maps.Keys(modules)) {
		file := filepath.Join(dir, analyzer.ConfigFile)
		switch {
		case filepath.IsAbs(config):
			file = config
		case config != "":
			file = filepath.Join(dir, config) // as the analyzer resolves it
		}
		fmt.Fprintf(both, "config %s\x00", file)
		if err := hashFile(both, file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			ok = false
		}
	}
	if f := analyzer.Analyzer.Flags.Lookup("schema"); f != nil && f.Value.String() != "" {
		// The files the schema was read from, discovered or named.
		sf, isSchema := f.Value.(*lockmodel.SchemaFlag)
		switch {
		case isSchema && strings.HasPrefix(sf.String(), "auto="):
			for _, file := range sf.Files() {
				fmt.Fprintf(both, "schema %s\x00", file)
				if hashFile(both, file) != nil {
					ok = false
				}
			}
		case f.Value.String() == "none":
		default:
			if hashTree(both, f.Value.String()) != nil {
				ok = false
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), hex.EncodeToString(he.Sum(nil)), ok
}

// load returns the cached results for key, with their edges when
// withEdges is set.
func (c resultCache) load(key string, withEdges bool) (*cachedResults, bool) {
	var r cachedResults
	if !readGob(filepath.Join(c.dir, key), &r) {
		return nil, false
	}
	if withEdges && !readGob(filepath.Join(c.dir, key+edgesSuffix), &r.Edges) {
		return nil, false
	}
	return &r, true
}

// edgesSuffix names the file of an entry's edges.
const edgesSuffix = ".edges"

// readGob decodes a cache file into v; a missing or damaged file is a
// miss.
func readGob(name string, v any) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return false
	}
	return gob.NewDecoder(zr).Decode(v) == nil
}

// store saves results under key and drops the oldest entries beyond
// maxCacheEntries. The cache is an optimisation: failing to write it is
// reported by the caller, never fatal.
func (c resultCache) store(key string, r *cachedResults) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	// The edges first: an entry whose main file exists is complete.
	if err := c.write(key+edgesSuffix, r.Edges); err != nil {
		return err
	}
	main := *r
	main.Edges = nil
	if err := c.write(key, &main); err != nil {
		return err
	}
	c.prune()
	return nil
}

// write stores v, gob-encoded, as the cache file name, atomically.
func (c resultCache) write(name string, v any) error {
	return writeGobFile(filepath.Join(c.dir, name), v)
}

// writeGobFile writes v, gob-encoded, to the file name, atomically: a
// concurrent reader sees the old file or the new one.
func writeGobFile(name string, v any) error {
	// Compressed: a big program's edges repeat their paths' file and
	// function names, and take a sixteenth of the space.
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	if err := gob.NewEncoder(zw).Encode(v); err != nil {
		return fmt.Errorf("result cache: encoding: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("result cache: encoding: %w", err)
	}
	return writeFileAtomic(name, buf.Bytes())
}

// writeFileAtomic writes b to name through a temporary file renamed into
// place: a reader sees the old file, none, or the whole new one.
func writeFileAtomic(name string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), "tmp-")
	if err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("result cache: writing: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("result cache: %w", err)
	}
	return nil
}

// prune removes the oldest entries beyond maxCacheEntries.
func (c resultCache) prune() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		mod  int64
	}
	var es []entry
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || strings.HasPrefix(e.Name(), "tmp-") {
			continue
		}
		es = append(es, entry{e.Name(), info.ModTime().UnixNano()})
	}
	if len(es) <= 2*maxCacheEntries { // an entry is two files
		return
	}
	slices.SortFunc(es, func(a, b entry) int { return int(b.mod - a.mod) })
	for _, e := range es[2*maxCacheEntries:] {
		_ = os.Remove(filepath.Join(c.dir, e.name))
	}
}

// goSettings are the environment variables that change what the go
// command builds, and so the identity of a package, without changing the
// files it lists.
var goSettings = []string{"GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "GOTOOLCHAIN", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOWORK", "GOENV"}

// goEnvFile names the file where go env -w keeps the go command's settings.
func goEnvFile() (string, error) {
	if f := os.Getenv("GOENV"); f != "" {
		return f, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("go env file: %w", err)
	}
	return filepath.Join(dir, "go", "env"), nil
}

// hashFile writes a file's contents to h.
func hashFile(h io.Writer, name string) error {
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintf(h, "missing\x00")
		return err
	}
	defer func() { _ = f.Close() }() // read only
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	// The file hidden behind a plain Reader: io.CopyBuffer would use
	// its WriteTo, which allocates a buffer per file (a run hashes
	// thousands of files).
	_, err = io.CopyBuffer(h, struct{ io.Reader }{f}, *buf)
	return err
}

// copyBufs are the buffers hashFile reads through.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// hashTree writes the names and contents of a file, or of every file under
// a directory, to h.
func hashTree(h io.Writer, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fmt.Fprintf(h, "tree %s\x00", path)
		return hashFile(h, path)
	})
}

// relink points the steps of cycles read from the cache at the graph's own
// edges, as the cycle search returns them: the graph drawing tells the
// edges on a cycle by identity.
func relink(g *lockgraph.Graph, cycles []*lockgraph.Cycle) {
	key := func(e *lockgraph.Edge) string {
		return fmt.Sprintf("%s|%s|%d|%s|%d|%t|%s|%v|%v", e.Func, e.Held.Class, e.Held.Mode, e.Wanted.Class, e.Wanted.Mode,
			e.CrossConn, e.Anchor(), e.HeldPath, e.WantedPath)
	}
	byKey := map[string]*lockgraph.Edge{}
	for _, e := range g.Edges() {
		byKey[key(e)] = e
	}
	for _, c := range cycles {
		for i, s := range c.Steps {
			if e, ok := byKey[key(s)]; ok {
				c.Steps[i] = e
			}
		}
	}
}

// loadsDir is the directory, inside the result cache, of the packages that
// runs on each set of patterns added (loadWith).
const loadsDir = "loads"

// loadsFile names the file of the patterns of a run in a directory, with its options.
func (c resultCache) loadsFile(cfg *packages.Config, patterns []string) string {
	dir, err := filepath.Abs(cfg.Dir)
	if c.dir == "" || err != nil {
		return ""
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%q\x00tests=%t\x00%q", cacheVersion, dir, patterns, cfg.Tests, cfg.BuildFlags))
	return filepath.Join(c.dir, loadsDir, hex.EncodeToString(sum[:]))
}

// knownExtras returns the packages that the last run on these patterns
// added to them (none when there is no such run or no cache).
func (c resultCache) knownExtras(cfg *packages.Config, patterns []string) []string {
	name := c.loadsFile(cfg, patterns)
	if name == "" {
		return nil
	}
	b, err := os.ReadFile(name)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\n")
}

// keepExtras keeps the packages that this run added to the patterns, for
// the next: an optimisation, so a failure to write is ignored.
func (c resultCache) keepExtras(cfg *packages.Config, patterns, extras []string) {
	name := c.loadsFile(cfg, patterns)
	if name == "" || os.MkdirAll(filepath.Dir(name), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "tmp-")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(strings.Join(extras, "\n"))
	if errors.Join(werr, tmp.Close()) != nil || os.Rename(tmp.Name(), name) != nil {
		_ = os.Remove(tmp.Name())
	}
	pruneDir(filepath.Dir(name), maxCacheEntries)
}
