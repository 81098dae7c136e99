package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pglockorder/pglockorder/internal/lockgraph"
)

// goPosition matches the line and column after a Go file name.
var goPosition = regexp.MustCompile(`(\.go):\d+(?::\d+)?`)

// fingerprint identifies a finding across unrelated edits. A cycle is
// identified by the path it is reported by (its breaker: function, locks
// and modes, see breakerKey) and by the functions on the other side, so a
// new path on either side is a new finding; another finding by its
// category, file and message. Line and column numbers are left out
// everywhere (also from the class of an advisory lock whose key is known
// only at run time, which names its call site), so adding a line above a
// finding does not make it new.
func fingerprint(f finding) string {
	raw := f.Category + "\n"
	if c := f.cycle; c != nil {
		raw += groupStepText(c) + "\n" + strings.Join(c.OtherFuncs(), "\n")
	} else {
		file, _, _ := splitPosn(f.Posn)
		raw += file + "\n" + f.Message
	}
	return digest(raw)
}

// breakerKey identifies the mistake a cycle's finding reports, whatever
// paths are on its other side: the category and the path it is reported
// by. It is "" for findings that are not cycles. A baseline entry stays
// known while a finding with its breaker key is reported: a path that still
// inverts is never called fixed.
func breakerKey(f finding) string {
	if f.cycle == nil {
		return ""
	}
	return digest(f.Category + "\n" + groupStepText(f.cycle))
}

// identity is what code scanning tracks an alert by: the mistake a
// cycle's finding reports (its breaker), or the fingerprint of any other
// finding. A path added to or fixed on the other side of a breaker keeps its
// alert.
func identity(f finding) string {
	if k := breakerKey(f); k != "" {
		return k
	}
	return fingerprint(f)
}

// groupStepText describes a cycle's group step for a digest.
func groupStepText(c *lockgraph.Cycle) string {
	s := c.GroupStep()
	return fmt.Sprintf("%s|%s %s|%s %s|%t", s.Func, s.Held.Class, s.Held.Mode, s.Wanted.Class, s.Wanted.Mode, s.CrossConn)
}

// digest hashes a description, without line and column numbers.
func digest(raw string) string {
	sum := sha256.Sum256([]byte(goPosition.ReplaceAllString(raw, "$1")))
	return hex.EncodeToString(sum[:16])
}

// splitPosn splits "file:line:col" into its parts; line and column are 0
// when absent.
func splitPosn(posn string) (file string, line, col int) {
	file = posn
	var nums []int
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 {
			break
		}
		n, err := strconv.Atoi(file[i+1:])
		if err != nil {
			break
		}
		nums = append([]int{n}, nums...)
		file = file[:i]
	}
	switch len(nums) {
	case 2:
		return file, nums[0], nums[1]
	case 1:
		return file, nums[0], 0
	}
	return file, 0, 0
}

// headline is the first line of a message.
func headline(msg string) string {
	first, _, _ := strings.Cut(msg, "\n")
	return first
}
