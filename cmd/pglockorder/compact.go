package main

import (
	"cmp"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"reflect"
	"slices"
	"sync"
)

// The per-package cache's entries (pkgcache.go) were gob streams, and gob
// describes every type a stream holds, and compiles a decoder for each
// description, once per stream: a summary's description is longer than most
// summaries, and on hatchet, after an edit, half of restoring 195 entries was
// reading descriptions. Their facts also repeat the frames and locks of
// their paths as edges do (edgecodec.go): 114 MB of gob for hatchet's
// entries. The compact encoding below writes no descriptions (the reader
// knows the types: they are the binary's own, which the cache's keys hash),
// writes each distinct string once per stream and then its index, and does
// the same for each distinct value of a flat struct type (one of scalars and
// strings only, such as a frame or a lock). It is driven by reflection, so a
// field added to a summary is encoded without a change here, and its
// decoder is compiled once per process, not once per entry.
//
// Its meaning follows gob's where the decoded values can tell: exported
// fields only, a nil or empty slice or map decodes as nil, a pointer keeps
// whether it is nil, and a type with a GobEncode method encodes itself.
// Interfaces, channels, functions and complex numbers are not encoded (a
// type holding one makes encoding fail, and the caller keeps gob).
// Decoding never panics on corrupt input: it fails, and a corrupt entry is
// a cache miss.

// compactCodec encodes and decodes one type.
type compactCodec struct {
	enc func(e *compactEncoder, v reflect.Value) error
	dec func(d *compactDecoder, v reflect.Value)
	// minSize is the fewest bytes one value takes: a slice whose length
	// exceeds what is left of the input divided by it is corrupt.
	minSize int
	// table is the index of the type's table of distinct values, for a
	// flat struct type (-1 for none).
	table int
}

var (
	compactCodecs sync.Map // reflect.Type → *compactCodec
	compactMu     sync.Mutex
	compactTables int // flat struct types seen, one table each
)

var (
	gobEncoderType = reflect.TypeFor[gob.GobEncoder]()
	gobDecoderType = reflect.TypeFor[gob.GobDecoder]()
)

// errCompactType says that a type cannot be encoded compactly.
var errCompactType = errors.New("compact encoding: unsupported type")

// codecFor returns the codec of t.
func codecFor(t reflect.Type) (*compactCodec, error) {
	if c, ok := compactCodecs.Load(t); ok {
		return c.(*compactCodec), nil
	}
	compactMu.Lock()
	defer compactMu.Unlock()
	building := map[reflect.Type]*compactCodec{}
	c, err := buildCodec(t, building)
	if err != nil {
		return nil, err
	}
	for bt, bc := range building {
		compactCodecs.Store(bt, bc)
	}
	return c, nil
}

// buildCodec builds the codec of t; building holds those being built, so
// that a recursive type refers to its own codec.
func buildCodec(t reflect.Type, building map[reflect.Type]*compactCodec) (*compactCodec, error) {
	if c, ok := compactCodecs.Load(t); ok {
		return c.(*compactCodec), nil
	}
	if c, ok := building[t]; ok {
		return c, nil
	}
	c := &compactCodec{table: -1, minSize: 1}
	building[t] = c
	if t.Implements(gobEncoderType) && reflect.PointerTo(t).Implements(gobDecoderType) {
		c.enc, c.dec = encGob, decGob
		return c, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			e.buf = append(e.buf, boolByte(v.Bool()))
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) { v.SetBool(d.byte() == 1) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			e.buf = binary.AppendVarint(e.buf, v.Int())
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			x := d.varint()
			if v.OverflowInt(x) {
				d.fail("integer out of range")
				return
			}
			v.SetInt(x)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			e.buf = binary.AppendUvarint(e.buf, v.Uint())
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			x := d.uvarint()
			if v.OverflowUint(x) {
				d.fail("integer out of range")
				return
			}
			v.SetUint(x)
		}
	case reflect.Float32, reflect.Float64:
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			e.buf = binary.AppendUvarint(e.buf, math.Float64bits(v.Float()))
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) { v.SetFloat(math.Float64frombits(d.uvarint())) }
	case reflect.String:
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			e.str(v.String())
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) { v.SetString(d.str()) }
	case reflect.Pointer:
		elem, err := buildCodec(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			if v.IsNil() {
				e.buf = append(e.buf, 0)
				return nil
			}
			e.buf = append(e.buf, 1)
			return elem.enc(e, v.Elem())
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			if d.byte() != 1 || d.err != nil {
				return
			}
			if !d.enter() {
				return
			}
			p := reflect.New(t.Elem())
			elem.dec(d, p.Elem())
			d.leave()
			v.Set(p)
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(gobEncoderType) {
			c.enc = func(e *compactEncoder, v reflect.Value) error {
				b := v.Bytes()
				e.buf = binary.AppendUvarint(e.buf, uint64(len(b)))
				e.buf = append(e.buf, b...)
				return nil
			}
			c.dec = func(d *compactDecoder, v reflect.Value) {
				if b := d.bytes(); len(b) > 0 {
					s := reflect.MakeSlice(t, len(b), len(b))
					copy(s.Bytes(), b)
					v.Set(s)
				}
			}
			break
		}
		elem, err := buildCodec(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			n := v.Len()
			e.buf = binary.AppendUvarint(e.buf, uint64(n))
			for i := range n {
				if err := elem.enc(e, v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			n := d.length(elem.minSize)
			if n == 0 || !d.enter() {
				return
			}
			s := reflect.MakeSlice(t, n, n)
			for i := 0; i < n && d.err == nil; i++ {
				elem.dec(d, s.Index(i))
			}
			d.leave()
			v.Set(s)
		}
	case reflect.Array:
		elem, err := buildCodec(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.minSize = t.Len() * elem.minSize
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			for i := range v.Len() {
				if err := elem.enc(e, v.Index(i)); err != nil {
					return err
				}
			}
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			for i := 0; i < v.Len() && d.err == nil; i++ {
				elem.dec(d, v.Index(i))
			}
		}
	case reflect.Map:
		key, err := buildCodec(t.Key(), building)
		if err != nil {
			return nil, err
		}
		elem, err := buildCodec(t.Elem(), building)
		if err != nil {
			return nil, err
		}
		c.enc = func(e *compactEncoder, v reflect.Value) error {
			keys := v.MapKeys()
			if t.Key().Kind() == reflect.String {
				// The same map, the same bytes.
				slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
			}
			e.buf = binary.AppendUvarint(e.buf, uint64(len(keys)))
			for _, k := range keys {
				if err := key.enc(e, k); err != nil {
					return err
				}
				if err := elem.enc(e, v.MapIndex(k)); err != nil {
					return err
				}
			}
			return nil
		}
		c.dec = func(d *compactDecoder, v reflect.Value) {
			n := d.length(key.minSize + elem.minSize)
			if n == 0 || !d.enter() {
				return
			}
			m := reflect.MakeMapWithSize(t, n)
			for i := 0; i < n && d.err == nil; i++ {
				k, x := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				key.dec(d, k)
				elem.dec(d, x)
				m.SetMapIndex(k, x)
			}
			d.leave()
			v.Set(m)
		}
	case reflect.Struct:
		return c, buildStruct(c, t, building)
	default:
		return nil, fmt.Errorf("%w: %s", errCompactType, t)
	}
	return c, nil
}

// buildStruct builds the codec of a struct type: its exported fields in
// order, or, for a flat struct, an index into the stream's table of the
// type's distinct values, followed by the fields the first time.
func buildStruct(c *compactCodec, t reflect.Type, building map[reflect.Type]*compactCodec) error {
	type field struct {
		index int
		codec *compactCodec
	}
	var fields []field
	flat := true
	c.minSize = 0
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fc, err := buildCodec(f.Type, building)
		if err != nil {
			return err
		}
		fields = append(fields, field{i, fc})
		c.minSize += fc.minSize
		if !flatKind(f.Type) {
			flat = false
		}
	}
	plain := func(e *compactEncoder, v reflect.Value) error {
		for _, f := range fields {
			if err := f.codec.enc(e, v.Field(f.index)); err != nil {
				return err
			}
		}
		return nil
	}
	plainDec := func(d *compactDecoder, v reflect.Value) {
		for _, f := range fields {
			if d.err != nil {
				return
			}
			f.codec.dec(d, v.Field(f.index))
		}
	}
	if !flat || len(fields) < 2 || !t.Comparable() {
		c.enc, c.dec = plain, plainDec
		return nil
	}
	c.table = compactTables
	compactTables++
	c.minSize = 1
	c.enc = func(e *compactEncoder, v reflect.Value) error {
		for len(e.tables) <= c.table {
			e.tables = append(e.tables, nil)
		}
		tab := e.tables[c.table]
		if tab == nil {
			tab = map[any]uint64{}
			e.tables[c.table] = tab
		}
		k := v.Interface()
		if i, ok := tab[k]; ok {
			e.buf = binary.AppendUvarint(e.buf, i)
			return nil
		}
		i := uint64(len(tab))
		tab[k] = i
		e.buf = binary.AppendUvarint(e.buf, i)
		return plain(e, v)
	}
	c.dec = func(d *compactDecoder, v reflect.Value) {
		for len(d.tables) <= c.table {
			d.tables = append(d.tables, nil)
		}
		i := d.uvarint()
		tab := d.tables[c.table]
		switch {
		case d.err != nil:
		case i < uint64(len(tab)):
			v.Set(tab[i])
		case i == uint64(len(tab)):
			plainDec(d, v)
			// A copy: v is a place in the decoded value.
			cp := reflect.New(t).Elem()
			cp.Set(v)
			d.tables[c.table] = append(tab, cp)
		default:
			d.fail("value index out of range")
		}
	}
	return nil
}

// flatKind reports whether a field of type t keeps its struct flat: a
// scalar, a string, or a flat struct (no pointers, slices or maps to copy).
func flatKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.String:
		return !t.Implements(gobEncoderType)
	case reflect.Struct:
		if t.Implements(gobEncoderType) {
			return false
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && !flatKind(f.Type) {
				return false
			}
		}
		return true
	}
	return false
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// encGob encodes a value of a type with a GobEncode method: 0 for a value
// gob leaves out (zero: an empty slice or map, a nil pointer), else one
// more than the length of its encoding, and the encoding.
func encGob(e *compactEncoder, v reflect.Value) error {
	if gobZero(v) {
		e.buf = append(e.buf, 0)
		return nil
	}
	b, err := v.Interface().(gob.GobEncoder).GobEncode()
	if err != nil {
		return fmt.Errorf("compact encoding: %w", err)
	}
	e.buf = binary.AppendUvarint(e.buf, uint64(len(b))+1)
	e.buf = append(e.buf, b...)
	return nil
}

func decGob(d *compactDecoder, v reflect.Value) {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return
	}
	if n-1 > uint64(len(d.b)-d.off) {
		d.fail("length out of range")
		return
	}
	b := d.b[d.off : d.off+int(n-1)]
	d.off += int(n - 1)
	if !v.CanAddr() {
		d.fail("value not addressable")
		return
	}
	if err := v.Addr().Interface().(gob.GobDecoder).GobDecode(b); err != nil {
		d.fail(err.Error())
	}
}

// gobZero reports whether gob leaves the value out of a stream.
func gobZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}

// compactEncoder writes one stream.
type compactEncoder struct {
	buf    []byte
	strs   map[string]uint64
	tables []map[any]uint64
}

// encode appends the value p points to (through p's codec: decode reads
// it back into a pointer of the same type).
func (e *compactEncoder) encode(p any) error {
	rv := reflect.ValueOf(p)
	c, err := codecFor(rv.Type())
	if err != nil {
		return err
	}
	return c.enc(e, rv)
}

// str writes s as its index in the stream's strings, followed by s itself
// the first time.
func (e *compactEncoder) str(s string) {
	if i, ok := e.strs[s]; ok {
		e.buf = binary.AppendUvarint(e.buf, i)
		return
	}
	if e.strs == nil {
		e.strs = map[string]uint64{}
	}
	i := uint64(len(e.strs))
	e.strs[s] = i
	e.buf = binary.AppendUvarint(e.buf, i)
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// maxCompactDepth bounds the nesting of the values decoded: corrupt input
// could otherwise nest as deep as it is long.
const maxCompactDepth = 10000

// compactDecoder reads one stream.
type compactDecoder struct {
	b      []byte
	off    int
	err    error
	depth  int
	strs   []string
	tables [][]reflect.Value
}

// fork returns a decoder at d's position that decodes what follows as d
// would, without changing d: its tables are its own.
func (d *compactDecoder) fork() compactDecoder {
	f := *d
	f.strs = slices.Clip(d.strs)
	f.tables = make([][]reflect.Value, len(d.tables))
	for i, t := range d.tables {
		f.tables[i] = slices.Clip(t)
	}
	return f
}

// decode reads the next value into the value p points to.
func (d *compactDecoder) decode(p any) error {
	rv := reflect.ValueOf(p)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errors.New("compact decoding: not a pointer")
	}
	c, err := codecFor(rv.Type())
	if err != nil {
		return err
	}
	// Through the pointer's codec, so that the value is addressable.
	tmp := reflect.New(rv.Type()).Elem()
	c.dec(d, tmp)
	if d.err != nil {
		return d.err
	}
	if !tmp.IsNil() {
		rv.Elem().Set(tmp.Elem())
	}
	return nil
}

func (d *compactDecoder) fail(why string) {
	if d.err == nil {
		d.err = fmt.Errorf("compact decoding at byte %d: %s", d.off, why)
	}
}

func (d *compactDecoder) enter() bool {
	d.depth++
	if d.depth > maxCompactDepth {
		d.fail("values nested too deep")
		return false
	}
	return true
}

func (d *compactDecoder) leave() { d.depth-- }

func (d *compactDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.fail("unexpected end")
		return 0
	}
	b := d.b[d.off]
	d.off++
	return b
}

func (d *compactDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad number")
		return 0
	}
	d.off += n
	return x
}

func (d *compactDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad number")
		return 0
	}
	d.off += n
	return x
}

// length reads the length of a slice or map whose elements take at least
// minSize bytes each.
func (d *compactDecoder) length(minSize int) int {
	n := d.uvarint()
	left := uint64(len(d.b) - d.off)
	// Elements that may take no bytes at all are bounded anyway.
	limit := max(left, 1<<16)
	if minSize > 0 {
		limit = left / uint64(minSize)
	}
	if n > limit {
		d.fail("length out of range")
		return 0
	}
	return int(n)
}

// bytes reads a length and that many bytes, which stay the input's.
func (d *compactDecoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail("length out of range")
		return nil
	}
	b := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return b
}

func (d *compactDecoder) str() string {
	i := d.uvarint()
	switch {
	case d.err != nil:
		return ""
	case i < uint64(len(d.strs)):
		return d.strs[i]
	case i == uint64(len(d.strs)):
		s := string(d.bytes())
		if d.err != nil {
			return ""
		}
		d.strs = append(d.strs, s)
		return s
	}
	d.fail("string index out of range")
	return ""
}

// compactFormat is the first byte of a file written by writeCompactFile.
const compactFormat byte = 'c'

// writeCompactFile writes the value p points to, compactly encoded, to
// name, through a temporary file (a reader never sees half a file).
func writeCompactFile(name string, p any) error {
	e := compactEncoder{buf: []byte{compactFormat}}
	if err := e.encode(p); err != nil {
		return err
	}
	// A checksum of the rest: a damaged file is a miss as a whole, and
	// the parts decoded later (lazyfacts.go) are whole.
	e.buf = binary.LittleEndian.AppendUint32(e.buf, crc32.Checksum(e.buf[1:], crcTable))
	return writeFileAtomic(name, e.buf)
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// readCompactFile reads a file writeCompactFile wrote into the value p
// points to; false when it is missing or corrupt (a cache miss).
func readCompactFile(name string, p any) bool {
	b, err := os.ReadFile(name)
	if err != nil || len(b) < 5 || b[0] != compactFormat {
		return false
	}
	body, sum := b[1:len(b)-4], b[len(b)-4:]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(sum) {
		return false
	}
	d := compactDecoder{b: body}
	return d.decode(p) == nil && d.off == len(d.b)
}
