package wasmbin_test

import (
	"bytes"
	"testing"

	"github.com/kube32/kube32/abi/wasmbin"
)

// FuzzReader: no input makes the reader panic (the project's rule 3), and
// what it reads round-trips through the writers: a section written again
// reads the same and is no longer (the same bytes when its size was in the
// fewest bytes), and each number or name read, written again, reads the
// same value from no more bytes. The seeds, real modules and their cuts,
// run in every test run; `go test -fuzz FuzzReader ./abi/wasmbin` mutates
// them.
func FuzzReader(f *testing.F) {
	for _, m := range seeds(f) {
		f.Add(m)
		for _, cut := range []int{9, len(m) / 2, len(m) - 1} {
			f.Add(m[:min(cut, len(m))])
		}
	}
	f.Fuzz(func(t *testing.T, bin []byte) {
		sectionsRoundTrip(t, bin)
		valuesRoundTrip(t, bin)
	})
}

func sectionsRoundTrip(t *testing.T, bin []byte) {
	r := wasmbin.NewReader(bin)
	if bytes.HasPrefix(bin, []byte(wasmbin.Magic)) {
		r.Bytes(min(len(bin), wasmbin.HeaderLen))
	}
	for r.More() {
		start := r.Offset()
		id, payload := r.Section()
		if r.Err() != nil {
			if payload.Err() == nil || payload.More() {
				t.Fatalf("a failed section's payload reads on: %v", payload.Err())
			}
			return
		}
		raw, body := bin[start:r.Offset()], bin[payload.Start():payload.End()]
		again := wasmbin.AppendSection(nil, id, body)
		if len(again) > len(raw) || len(again) == len(raw) && !bytes.Equal(again, raw) {
			t.Fatalf("section % x written again as % x", raw, again)
		}
		id2, payload2 := wasmbin.NewReader(again).Section()
		if id2 != id || payload2.Err() != nil || !bytes.Equal(again[payload2.Start():payload2.End()], body) {
			t.Fatalf("section % x reads back as id %d, payload error %v", again, id2, payload2.Err())
		}
		// A payload read to its end in numbers never reads past it.
		for payload.More() {
			payload.U64()
		}
		if payload.Offset() > r.Offset() {
			t.Fatalf("payload read to %d, past its section's end %d", payload.Offset(), r.Offset())
		}
	}
}

// valuesRoundTrip reads bin as a sequence of numbers and names, the next
// byte choosing which, and writes each again.
func valuesRoundTrip(t *testing.T, bin []byte) {
	r := wasmbin.NewReader(bin)
	for r.More() {
		kind := r.Byte()
		start := r.Offset()
		var again []byte
		var same func(*wasmbin.Reader) bool
		switch kind % 7 {
		case 0:
			v := r.U32()
			again, same = wasmbin.AppendU32(nil, v), func(r *wasmbin.Reader) bool { return r.U32() == v }
		case 1:
			v := r.U64()
			again, same = wasmbin.AppendU64(nil, v), func(r *wasmbin.Reader) bool { return r.U64() == v }
		case 2:
			v := r.S33()
			again, same = wasmbin.AppendS64(nil, v), func(r *wasmbin.Reader) bool { return r.S33() == v }
		case 3:
			v := r.S64()
			again, same = wasmbin.AppendS64(nil, v), func(r *wasmbin.Reader) bool { return r.S64() == v }
		case 4:
			v := r.Name()
			again, same = wasmbin.AppendName(nil, v), func(r *wasmbin.Reader) bool { return r.Name() == v }
		case 5: // a reader from any offset, in or out of range, only fails
			from := r.From(start - 1 + int(r.Peek()) - 0x40)
			from.Sub(int(from.U32()))
			continue
		case 6: // types and limits read or fail, within the bytes
			r.ValType()
			r.Limits()
			if r.Offset() > len(bin) {
				t.Fatalf("read to %d, past the end %d", r.Offset(), len(bin))
			}
			continue
		}
		if r.Err() != nil {
			return
		}
		back := wasmbin.NewReader(again)
		if len(again) > r.Offset()-start || !same(back) || back.Err() != nil || back.More() {
			t.Fatalf("value % x written again as % x does not read back the same", bin[start:r.Offset()], again)
		}
	}
}
