package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// small is a corpus size that builds in seconds.
var small = Config{Packages: 40, Funcs: 20, SQLShare: 30, Planted: 4, Seed: 1}

// TestGenerateDeterministic checks that the same flags write the same
// module, byte for byte, and another seed another one.
func TestGenerateDeterministic(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	sa, err := Generate(a, small)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Generate(b, small)
	if err != nil {
		t.Fatal(err)
	}
	other := small
	other.Seed = 2
	if _, err := Generate(c, other); err != nil {
		t.Fatal(err)
	}
	if sa != sb {
		t.Errorf("stats differ: %+v and %+v", sa, sb)
	}
	if sa.Packages != small.Packages || sa.Planted != small.Planted || sa.Functions < small.Packages*small.Funcs*9/10 || sa.Lines == 0 {
		t.Errorf("stats %+v do not match the configuration %+v", sa, small)
	}
	ta, tb, tc := tree(t, a), tree(t, b), tree(t, c)
	if len(ta) != sa.Packages+1 { // go.mod
		t.Errorf("%d files, want one per package and go.mod", len(ta))
	}
	same := true
	for name, src := range ta {
		if !bytes.Equal(src, tb[name]) {
			t.Errorf("%s differs between two runs with the same flags", name)
		}
		same = same && bytes.Equal(src, tc[name])
	}
	if same {
		t.Error("another seed wrote the same module")
	}
}

func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = src
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestGenerateConfig checks that impossible sizes are refused.
func TestGenerateConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Packages: 5, Funcs: 20, SQLShare: 100},
		{Packages: 40, Funcs: 3, SQLShare: 30},
		{Packages: 40, Funcs: 20, SQLShare: 130},
	} {
		if _, err := Generate(t.TempDir(), cfg); !errors.Is(err, errConfig) {
			t.Errorf("%+v: error %v, want a configuration error", cfg, err)
		}
	}
}

// inversion matches the first line of a lock-order finding.
var inversion = regexp.MustCompile(`(?m)^\S.*: lock-order inversion: .*\bplant_[xy]_\d+\b`)

// corpus generates a module of the given size whose dependencies are
// those of testdata/corpus, and builds the pglockorder command.
func corpus(tb testing.TB, cfg Config) (dir, tool string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds and runs pglockorder over a generated module; skipped with -short")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		tb.Fatal(err)
	}
	download := exec.Command("go", "mod", "download")
	download.Dir = filepath.Join(root, "testdata", "corpus")
	if out, err := download.CombinedOutput(); err != nil {
		tb.Fatalf("go mod download: %v\n%s", err, out)
	}
	dir = filepath.Join(tb.TempDir(), "corpus")
	cfg.GoSum = filepath.Join(root, "testdata", "corpus", "go.sum")
	if _, err := Generate(dir, cfg); err != nil {
		tb.Fatal(err)
	}
	tool = filepath.Join(tb.TempDir(), "pglockorder")
	if out, err := exec.Command("go", "build", "-o", tool, filepath.Join(root, "cmd", "pglockorder")).CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return dir, tool
}

// runCorpus runs the tool over the corpus and checks that it finds
// exactly the planted inversions.
func runCorpus(tb testing.TB, dir, tool string, planted int, args ...string) {
	tb.Helper()
	cmd := exec.Command(tool, append(args, "./...")...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		tb.Fatalf("pglockorder: %v, want exit status 3\n%s\n%s", err, out.String(), errOut.String())
	}
	if n := len(inversion.FindAllString(out.String(), -1)); n != planted || bytes.Count(out.Bytes(), []byte("lock-order inversion")) != planted {
		tb.Fatalf("%d planted inversions reported, want %d\n%s", n, planted, out.String())
	}
}

// TestPlanted checks that pglockorder finds the planted inversions of a
// generated module, and nothing else: the rest of the code locks in one
// order. It also checks that the module builds and passes go vet.
func TestPlanted(t *testing.T) {
	dir, tool := corpus(t, small)
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet on the generated module: %v\n%s", err, out)
	}
	runCorpus(t, dir, tool, small.Planted)
}

// BenchmarkWholeProgram measures the pglockorder command over a small
// generated module with a warm build cache (bench.sh compares larger ones
// with go vet).
func BenchmarkWholeProgram(b *testing.B) {
	cfg := Config{Packages: 100, Funcs: 40, SQLShare: 30, Planted: 4, Seed: 1}
	dir, tool := corpus(b, cfg)
	build := exec.Command("go", "build", "./...")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for b.Loop() {
		runCorpus(b, dir, tool, cfg.Planted)
	}
}
