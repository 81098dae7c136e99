package lockgraph

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"go/token"
	"reflect"

	"github.com/pglockorder/pglockorder/internal/lockmodel"
)

// EdgeList is a list of lock-order edges as the command's caches and the
// analyzer's package facts keep them. Gob would
// write every frame of every path in full, but a package's edges share a few
// hundred frames among hundreds of thousands of path steps (hatchet's
// repository package: 45,000 edges, 375,000 steps, 985 distinct frames, 212 MB
// of gob), so the list encodes itself: a table of the distinct strings, one
// of the distinct locks and one of the distinct frames, then each edge as
// indexes into them. Encoding and decoding cost a small fraction of gob's,
// and the decoded edges share their strings.
type EdgeList []*Edge

// The first byte of an encoded edge list says how the rest is encoded.
const (
	edgesTabled byte = 1 // the tables above
	edgesGob    byte = 2 // plain gob, when the edge types are not those codecFits knows
)

// GobEncode encodes the list (gob calls it for a field of the type).
func (l EdgeList) GobEncode() ([]byte, error) {
	if !codecFits {
		var buf bytes.Buffer
		buf.WriteByte(edgesGob)
		if err := gob.NewEncoder(&buf).Encode([]*Edge(l)); err != nil {
			return nil, fmt.Errorf("encoding edges: %w", err)
		}
		return buf.Bytes(), nil
	}
	var enc edgeEncoder
	for _, e := range l {
		enc.edge(e)
	}
	return enc.bytes(), nil
}

// GobDecode decodes a list GobEncode encoded.
func (l *EdgeList) GobDecode(b []byte) error {
	if len(b) == 0 {
		return errors.New("decoding edges: empty")
	}
	switch b[0] {
	case edgesGob:
		var edges []*Edge
		if err := gob.NewDecoder(bytes.NewReader(b[1:])).Decode(&edges); err != nil {
			return fmt.Errorf("decoding edges: %w", err)
		}
		*l = edges
		return nil
	case edgesTabled:
		if !codecFits {
			return errors.New("decoding edges: the edge types changed")
		}
		d := edgeDecoder{b: b[1:]}
		edges := d.edges()
		if d.err != nil {
			return fmt.Errorf("decoding edges: %w", d.err)
		}
		*l = edges
		return nil
	}
	return fmt.Errorf("decoding edges: unknown encoding %d", b[0])
}

// CodecComplete reports whether the tabled encoding knows every field of
// the edge types: equal encodings then mean equal edges.
func CodecComplete() bool { return codecFits }

// codecFits reports whether the edge types have the fields the tabled
// encoding writes, and no others: a field added to Edge, Frame,
// Lock or Class must not be silently dropped from the caches (until the
// codec learns it, the lists fall back to gob, and TestEdgeCodecFits fails).
var codecFits = fieldsAre[Edge]("Held", "Wanted", "Func", "Pkg", "HeldPath", "WantedPath", "CrossConn", "Gates", "Keyed", "Lent") &&
	fieldsAre[KeyedGate]("Lock", "Shape", "Held", "Wanted") &&
	fieldsAre[Frame]("Func", "Pos", "What", "SQL") &&
	fieldsAre[token.Position]("Filename", "Offset", "Line", "Column") &&
	fieldsAre[Lock]("Class", "Mode", "Waits", "Session", "Pooled") &&
	fieldsAre[Class]("Kind", "Name", "Site", "Shape") &&
	reflect.TypeFor[ClassKind]().Kind() == reflect.Uint8 &&
	reflect.TypeFor[lockmodel.Mode]().Kind() == reflect.Uint8

// fieldsAre reports whether struct type T has exactly the named fields.
func fieldsAre[T any](names ...string) bool {
	t := reflect.TypeFor[T]()
	if t.NumField() != len(names) {
		return false
	}
	for i, n := range names {
		if t.Field(i).Name != n {
			return false
		}
	}
	return true
}

// edgeEncoder builds the tabled encoding of a list of edges. The tables are
// filled in the order things first appear, so equal lists encode to equal
// bytes (the cycle cache's key, cycles.go, relies on it), and equal edges of
// one list to equal records (withoutCopies does).
type edgeEncoder struct {
	strs      map[string]uint64
	strList   []string
	locks     map[Lock]uint64
	lockBuf   []byte
	nlocks    uint64
	frames    map[Frame]uint64
	frameBuf  []byte
	nframes   uint64
	edgeBuf   []byte
	nedges    uint64
	pathSteps uint64 // frames in all paths, for the decoder to allocate once
	gateLocks uint64
}

func (e *edgeEncoder) str(s string) uint64 {
	if e.strs == nil {
		e.strs = map[string]uint64{"": 0}
		e.strList = []string{""}
	}
	i, ok := e.strs[s]
	if !ok {
		i = uint64(len(e.strList))
		e.strs[s] = i
		e.strList = append(e.strList, s)
	}
	return i
}

func (e *edgeEncoder) lock(l Lock) uint64 {
	if i, ok := e.locks[l]; ok {
		return i
	}
	if e.locks == nil {
		e.locks = map[Lock]uint64{}
	}
	b := binary.AppendUvarint(e.lockBuf, uint64(l.Class.Kind))
	b = binary.AppendUvarint(b, e.str(l.Class.Name))
	b = binary.AppendUvarint(b, e.str(l.Class.Site))
	b = binary.AppendUvarint(b, e.str(l.Class.Shape))
	b = binary.AppendUvarint(b, uint64(l.Mode))
	b = append(b, flags(l.Waits, l.Session, l.Pooled))
	e.lockBuf = b
	i := e.nlocks
	e.locks[l] = i
	e.nlocks++
	return i
}

func (e *edgeEncoder) frame(f Frame) uint64 {
	if i, ok := e.frames[f]; ok {
		return i
	}
	if e.frames == nil {
		e.frames = map[Frame]uint64{}
	}
	b := binary.AppendUvarint(e.frameBuf, e.str(f.Func))
	b = binary.AppendUvarint(b, e.str(f.Pos.Filename))
	b = binary.AppendVarint(b, int64(f.Pos.Offset))
	b = binary.AppendVarint(b, int64(f.Pos.Line))
	b = binary.AppendVarint(b, int64(f.Pos.Column))
	b = binary.AppendUvarint(b, e.str(f.What))
	e.frameBuf = binary.AppendUvarint(b, e.str(f.SQL))
	i := e.nframes
	e.frames[f] = i
	e.nframes++
	return i
}

// edge appends one edge's record and returns it (valid until the next
// call).
func (e *edgeEncoder) edge(x *Edge) []byte {
	start := len(e.edgeBuf)
	held, wanted := e.lock(x.Held), e.lock(x.Wanted)
	fn, pkg := e.str(x.Func), e.str(x.Pkg)
	b := binary.AppendUvarint(e.edgeBuf, held)
	b = binary.AppendUvarint(b, wanted)
	b = binary.AppendUvarint(b, fn)
	b = binary.AppendUvarint(b, pkg)
	for _, path := range [][]Frame{x.HeldPath, x.WantedPath} {
		b = binary.AppendUvarint(b, uint64(len(path)))
		for _, f := range path {
			b = binary.AppendUvarint(b, e.frame(f))
		}
		e.pathSteps += uint64(len(path))
	}
	b = append(b, flags(x.CrossConn))
	b = binary.AppendUvarint(b, uint64(len(x.Gates)))
	for _, g := range x.Gates {
		b = binary.AppendUvarint(b, e.lock(g))
	}
	e.gateLocks += uint64(len(x.Gates))
	b = binary.AppendUvarint(b, uint64(len(x.Keyed)))
	for _, k := range x.Keyed {
		b = binary.AppendUvarint(b, e.lock(k.Lock))
		b = binary.AppendUvarint(b, e.str(k.Shape))
		b = binary.AppendUvarint(b, e.str(k.Held))
		b = binary.AppendUvarint(b, e.str(k.Wanted))
	}
	b = binary.AppendUvarint(b, e.str(x.Lent))
	e.edgeBuf = b
	e.nedges++
	return b[start:]
}

// bytes returns the encoding of the edges added so far.
func (e *edgeEncoder) bytes() []byte {
	e.str("") // the table always starts with ""
	n := 1 + 6*binary.MaxVarintLen64 + len(e.lockBuf) + len(e.frameBuf) + len(e.edgeBuf)
	for _, s := range e.strList {
		n += binary.MaxVarintLen64 + len(s)
	}
	b := make([]byte, 0, n)
	b = append(b, edgesTabled)
	b = binary.AppendUvarint(b, uint64(len(e.strList)))
	for _, s := range e.strList {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, e.nlocks)
	b = append(b, e.lockBuf...)
	b = binary.AppendUvarint(b, e.nframes)
	b = append(b, e.frameBuf...)
	b = binary.AppendUvarint(b, e.nedges)
	b = binary.AppendUvarint(b, e.pathSteps)
	b = binary.AppendUvarint(b, e.gateLocks)
	return append(b, e.edgeBuf...)
}

func flags(bits ...bool) byte {
	var f byte
	for i, b := range bits {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// edgeDecoder reads the tabled encoding; the first error stops it.
type edgeDecoder struct {
	b   []byte
	err error
}

func (d *edgeDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errors.New("truncated")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *edgeDecoder) varint() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errors.New("truncated")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *edgeDecoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errors.New("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// count reads a number of items, each taking at least one byte of what is
// left: a damaged count must not allocate without bound.
func (d *edgeDecoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err = errors.New("count out of range")
		return 0
	}
	return int(n)
}

// index reads an index into a table of n items.
func (d *edgeDecoder) index(n int) int {
	i := d.uvarint()
	if d.err == nil && i >= uint64(n) {
		d.err = errors.New("index out of range")
		return 0
	}
	return int(i)
}

func (d *edgeDecoder) edges() []*Edge {
	strs := make([]string, d.count())
	for i := range strs {
		n := d.count()
		if d.err != nil {
			return nil
		}
		strs[i] = string(d.b[:n])
		d.b = d.b[n:]
	}
	if len(strs) == 0 {
		d.err = errors.New("no string table")
		return nil
	}
	str := func() string { return strs[d.index(len(strs))] }
	locks := make([]Lock, d.count())
	for i := range locks {
		l := &locks[i]
		l.Class.Kind = ClassKind(d.uvarint())
		l.Class.Name, l.Class.Site, l.Class.Shape = str(), str(), str()
		l.Mode = lockmodel.Mode(d.uvarint())
		f := d.byte()
		l.Waits, l.Session, l.Pooled = f&1 != 0, f&2 != 0, f&4 != 0
	}
	frames := make([]Frame, d.count())
	for i := range frames {
		f := &frames[i]
		f.Func, f.Pos.Filename = str(), str()
		f.Pos.Offset, f.Pos.Line, f.Pos.Column = d.varint(), d.varint(), d.varint()
		f.What, f.SQL = str(), str()
	}
	n := d.count()
	if n > 0 && len(locks) == 0 {
		d.err = errors.New("edges without locks")
	}
	// Every step and gate is at least one byte of the edges' records.
	stepsLeft := d.count() // an upper bound: equal paths are shared
	var steps []Frame
	gates := make([]Lock, 0, d.count())
	if d.err != nil {
		return nil
	}
	all := make([]Edge, n)
	out := make([]*Edge, n)
	// Equal paths are one slice: many edges of a function share the path
	// to the lock it holds (hatchet's restored edges took a third less
	// memory). Paths are only read, never written in place.
	paths := map[string][]Frame{}
	path := func() []Frame {
		k := d.count()
		if k == 0 || d.err != nil {
			return nil
		}
		if len(frames) == 0 {
			d.err = errors.New("a path without frames")
			return nil
		}
		if cap(steps)-len(steps) < k {
			// A new array, of the steps that may be left (not
			// more than a block of them: paths are shared).
			steps = make([]Frame, 0, max(k, min(stepsLeft, 1024)))
		}
		stepsLeft -= k
		rec := d.b
		start := len(steps)
		for range k {
			steps = append(steps, frames[d.index(len(frames))])
		}
		rec = rec[:len(rec)-len(d.b)]
		if p, ok := paths[string(rec)]; ok {
			steps = steps[:start]
			return p
		}
		// The paths share one array; each is capped, so that appending
		// to one copies it.
		p := steps[start:len(steps):len(steps)]
		paths[string(rec)] = p
		return p
	}
	for i := range all {
		e := &all[i]
		e.Held, e.Wanted = locks[d.index(len(locks))], locks[d.index(len(locks))]
		e.Func, e.Pkg = str(), str()
		e.HeldPath = path()
		e.WantedPath = path()
		e.CrossConn = d.byte()&1 != 0
		if k := d.count(); k > 0 && d.err == nil {
			start := len(gates)
			for range k {
				gates = append(gates, locks[d.index(len(locks))])
			}
			e.Gates = gates[start:len(gates):len(gates)]
		}
		if k := d.count(); k > 0 && d.err == nil {
			e.Keyed = make([]KeyedGate, k)
			for j := range e.Keyed {
				e.Keyed[j] = KeyedGate{Lock: locks[d.index(len(locks))], Shape: str(), Held: str(), Wanted: str()}
			}
		}
		e.Lent = str()
		if d.err != nil {
			return nil
		}
		out[i] = e
	}
	if len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
		return nil
	}
	return out
}
