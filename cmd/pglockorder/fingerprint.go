package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// goPosition matches the line and column after a Go file name.
var goPosition = regexp.MustCompile(`(\.go):\d+(?::\d+)?`)

// fingerprint identifies a finding across unrelated edits: a cycle by its
// category, the functions of its paths and the lock classes and modes they
// take; another finding by its category, file and message. Line and column
// numbers are left out everywhere (also from the class of an advisory lock
// whose key is known only at run time, which names its call site), so
// adding a line above a finding does not make it new.
func fingerprint(f finding) string {
	var raw string
	if c := f.cycle; c != nil {
		steps := make([]string, len(c.Steps))
		for i, s := range c.Steps {
			steps[i] = fmt.Sprintf("%s|%s %s|%s %s|%t", s.Func, s.Held.Class, s.Held.Mode, s.Wanted.Class, s.Wanted.Mode, s.CrossConn)
		}
		slices.Sort(steps)
		raw = f.Category + "\n" + strings.Join(steps, "\n")
	} else {
		file, _, _ := splitPosn(f.Posn)
		raw = f.Category + "\n" + file + "\n" + f.Message
	}
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
