package category_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pglockorder/pglockorder/internal/category"
)

var update = flag.Bool("update", false, "rewrite the README's table of categories")

// TestCatalogue checks that every category is complete and named once.
func TestCatalogue(t *testing.T) {
	ids, names := map[string]bool{}, map[string]bool{}
	idRE := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	for _, c := range category.All {
		if !idRE.MatchString(c.ID) || ids[c.ID] || names[c.Name] {
			t.Errorf("category %q: malformed or repeated ID or name %q", c.ID, c.Name)
		}
		ids[c.ID], names[c.Name] = true, true
		if c.Title == "" || c.Help == "" || strings.Contains(c.Help, "|") {
			t.Errorf("category %q: missing title or help, or a | that would break the README's table", c.ID)
		}
		if c.Severity != "error" && c.Severity != "warning" {
			t.Errorf("category %q: severity %q", c.ID, c.Severity)
		}
		if got, ok := category.Lookup(c.ID); !ok || got.ID != c.ID {
			t.Errorf("Lookup(%q) = %v, %t", c.ID, got, ok)
		}
		if !strings.HasSuffix(c.URL(), "#"+c.Anchor()) {
			t.Errorf("category %q: URL %s does not point at its anchor %s", c.ID, c.URL(), c.Anchor())
		}
	}
	if _, ok := category.Lookup("no-such-category"); ok {
		t.Error("Lookup found a category that does not exist")
	}
}

// TestREADME checks that the README's table of categories is the one the
// catalogue makes, and that the analyzer's documentation names each.
func TestREADME(t *testing.T) {
	file := filepath.Join("..", "..", "README.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "-update rewrites it -->\n", "<!-- end of categories -->"
	readme := string(data)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated table of categories (between %q and %q)", file, begin, end)
	}
	i += len(begin)
	want := category.MarkdownTable()
	if *update {
		if err := os.WriteFile(file, []byte(readme[:i]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got := readme[i:j]; got != want {
		t.Errorf("the README's table of categories is out of date (go test ./internal/category -update rewrites it):\ngot:\n%s\nwant:\n%s", got, want)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "analyzer", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range category.All {
		if !strings.Contains(string(doc), "//   - "+c.ID+":") {
			t.Errorf("analyzer/doc.go does not document category %q (as a \"- %s:\" item)", c.ID, c.ID)
		}
	}
}
