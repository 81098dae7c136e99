package explain

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// Input limits. A log line longer than maxLine is cut (and counted); one
// entry keeps at most maxField bytes of each of its fields. Together with
// the bounded number of pending entries they bound the memory a reader
// uses whatever the size of its input.
const (
	maxLine  = 1 << 20
	maxField = 64 << 10
)

// lineReader yields the lines of a stream, cutting those longer than
// maxLine.
type lineReader struct {
	r    *bufio.Reader
	line int
	cut  int // lines cut at maxLine
	buf  []byte
}

// newLineReader reads r, decompressing it when it is gzip (rotated logs
// often are).
func newLineReader(r io.Reader) (*lineReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip: %w", err)
		}
		br = bufio.NewReaderSize(zr, 64<<10)
	}
	return &lineReader{r: br}, nil
}

// next returns the next line without its line ending; io.EOF at the end.
// The slice is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	cut := false
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) <= maxLine {
			lr.buf = append(lr.buf, chunk...)
		} else {
			if room := maxLine - len(lr.buf); room > 0 {
				lr.buf = append(lr.buf, chunk[:room]...)
			}
			cut = true
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
		case errors.Is(err, io.EOF):
			if len(lr.buf) == 0 {
				return nil, io.EOF
			}
		default:
			return nil, fmt.Errorf("line %d: %w", lr.line+1, err)
		}
		break
	}
	lr.line++
	if cut {
		lr.cut++
	}
	line := bytes.TrimSuffix(lr.buf, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// clip cuts s to maxField bytes and reports whether it did.
func clip(s string) (string, bool) {
	if len(s) <= maxField {
		return s, false
	}
	return s[:maxField], true
}
