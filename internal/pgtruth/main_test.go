package pgtruth

import (
	"os"
	"testing"

	"github.com/pglockorder/pglockorder/internal/testenv"
)

// TestMain ends the run with a line naming the tests skipped without a
// server.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m))
}
