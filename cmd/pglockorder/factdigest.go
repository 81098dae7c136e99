package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"reflect"
	"slices"
)

// factDigest returns a SHA-256 of a fact's value that is the same in every
// process: the per-package cache compares the digest of a fact read in one
// run with that of the fact now. A digest of the fact's gob encoding is not:
// gob numbers the types in the order a process first encodes them, which
// differs between runs whose goroutines encode entries and facts in
// different orders, so equal facts got unequal digests and their readers
// were analysed again. What gob does not keep does not count: unexported
// fields, the difference between a nil slice and an empty one, or between a
// nil pointer and one to a zero number or string.
func factDigest(v any) ([sha256.Size]byte, error) {
	d := valueHasher{h: sha256.New()}
	if err := d.value(reflect.ValueOf(v)); err != nil {
		return [sha256.Size]byte{}, err
	}
	d.flush()
	var sum [sha256.Size]byte
	d.h.Sum(sum[:0])
	return sum, nil
}

// valueHasher writes a value's canonical form to a hash, through a buffer.
type valueHasher struct {
	h   hash.Hash
	buf []byte
}

func (d *valueHasher) flush() {
	d.h.Write(d.buf)
	d.buf = d.buf[:0]
}

func (d *valueHasher) uint(u uint64) {
	d.buf = binary.AppendUvarint(d.buf, u)
	if len(d.buf) > 32<<10 {
		d.flush()
	}
}

func (d *valueHasher) bytes(s string) {
	d.uint(uint64(len(s)))
	d.buf = append(d.buf, s...)
}

func (d *valueHasher) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Invalid:
		d.uint(0)
	case reflect.Bool:
		var b uint64
		if v.Bool() {
			b = 1
		}
		d.uint(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.buf = binary.AppendVarint(d.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.uint(v.Uint())
	case reflect.Float32, reflect.Float64:
		d.uint(math.Float64bits(v.Float()))
	case reflect.String:
		d.bytes(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			d.bytes(string(v.Bytes()))
			return nil
		}
		d.uint(uint64(v.Len()))
		for i := range v.Len() {
			if err := d.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				if err := d.value(v.Field(i)); err != nil {
					return err
				}
			}
		}
	case reflect.Pointer, reflect.Interface:
		// Gob sends a pointer to a zero value other than a struct as
		// nothing, and reads it back as nil.
		if v.IsNil() || v.Kind() == reflect.Pointer && v.Elem().Kind() != reflect.Struct && v.Elem().IsZero() {
			d.uint(0)
			return nil
		}
		d.uint(1)
		if v.Kind() == reflect.Interface {
			d.bytes(v.Elem().Type().String())
		}
		return d.value(v.Elem())
	case reflect.Map:
		// Entries in the order of their keys' digests.
		type entry struct{ k, v [sha256.Size]byte }
		es := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			k, err := factDigest(it.Key().Interface())
			if err != nil {
				return err
			}
			val, err := factDigest(it.Value().Interface())
			if err != nil {
				return err
			}
			es = append(es, entry{k, val})
		}
		slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(string(a.k[:]), string(b.k[:])) })
		d.uint(uint64(len(es)))
		for _, e := range es {
			d.buf = append(append(d.buf, e.k[:]...), e.v[:]...)
		}
	default:
		return fmt.Errorf("a fact holds a %s", v.Type())
	}
	return nil
}
