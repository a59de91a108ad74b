package wasmbin_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// LEB128 as the binary format writes it (docs/abi.md links the
// WebAssembly specification): the spec's and DWARF's examples, each read
// back from the bytes and written in the fewest bytes.
func TestLEB128BothWays(t *testing.T) {
	for _, tt := range []struct {
		v    uint64
		want string
	}{{0, "\x00"}, {127, "\x7f"}, {128, "\x80\x01"}, {624485, "\xe5\x8e\x26"}, {1<<32 - 1, "\xff\xff\xff\xff\x0f"}, {1<<64 - 1, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"}} {
		if got := string(wasmbin.AppendU64(nil, tt.v)); got != tt.want {
			t.Errorf("AppendU64(%d) = % x, want % x", tt.v, got, tt.want)
		}
		if got := wasmbin.NewReader([]byte(tt.want)).U64(); got != tt.v {
			t.Errorf("U64(% x) = %d, want %d", tt.want, got, tt.v)
		}
		if tt.v <= 1<<32-1 {
			if got := wasmbin.NewReader([]byte(tt.want)).U32(); uint64(got) != tt.v {
				t.Errorf("U32(% x) = %d, want %d", tt.want, got, tt.v)
			}
		}
	}
	for _, tt := range []struct {
		v    int64
		want string
	}{{0, "\x00"}, {-1, "\x7f"}, {63, "\x3f"}, {64, "\xc0\x00"}, {-64, "\x40"}, {-65, "\xbf\x7f"}, {-123456, "\xc0\xbb\x78"}, {-1 << 63, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x7f"}} {
		if got := string(wasmbin.AppendS64(nil, tt.v)); got != tt.want {
			t.Errorf("AppendS64(%d) = % x, want % x", tt.v, got, tt.want)
		}
		if got := wasmbin.NewReader([]byte(tt.want)).S64(); got != tt.v {
			t.Errorf("S64(% x) = %d, want %d", tt.want, got, tt.v)
		}
	}
	if got := wasmbin.NewReader([]byte("\x40")).S33(); got != -64 {
		t.Errorf("S33(40) = %d, want -64", got)
	}
}

// Value types and limits as imports, tables and memories write them.
func TestValTypesAndLimits(t *testing.T) {
	r := wasmbin.NewReader([]byte("\x7f\x63\x70\x64\x7f\x00\x01\x01\x80\x02\x05\x02\x03\x0d\x01\x02\x10"))
	var types []int64
	for range 3 {
		t, heap := r.ValType()
		types = append(types, int64(t), heap)
	}
	if want := []int64{0x7f, 0, 0x63, -16, 0x64, -1}; !slices.Equal(types, want) {
		t.Errorf("value types %x, want %x", types, want)
	}
	var limits [][3]uint64
	for r.More() {
		flags, lo, hi := r.Limits()
		limits = append(limits, [3]uint64{uint64(flags), lo, hi})
	}
	want := [][3]uint64{{0, 1, 0}, {1, 256, 5}, {2, 3, 0}, {0x0d, 1, 2}}
	if r.Err() != nil || !slices.Equal(limits, want) {
		t.Errorf("limits %v (%v), want %v", limits, r.Err(), want)
	}
}

// Rule (the project's rule 3): bad input is an error naming the offset
// in the binary, and every read after it returns zero.
func TestReaderFailsOnceNamingTheOffset(t *testing.T) {
	for _, tt := range []struct {
		name, bin string
		read      func(*wasmbin.Reader)
		want      string
	}{
		{"a name past the end", "\x05ab", func(r *wasmbin.Reader) { r.Name() }, "offset 11: 5 bytes past the end"},
		{"a u32 of six bytes", "\x80\x80\x80\x80\x80\x00", func(r *wasmbin.Reader) { r.U32() }, "offset 15: LEB128 number longer than 5 bytes"},
		{"a section cut short", "\x0a\x10\x01", func(r *wasmbin.Reader) { r.Section() }, "offset 12: 16 bytes past the end"},
		{"a byte at the end", "", func(r *wasmbin.Reader) { r.Byte() }, "offset 10: unexpected end"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := wasmbin.NewReaderAt([]byte(tt.bin), 10)
			tt.read(r)
			if r.Err() == nil || r.Err().Error() != tt.want {
				t.Fatalf("error %v, want %q", r.Err(), tt.want)
			}
			if r.More() || r.U32() != 0 || r.Byte() != 0 || r.Name() != "" || r.Err().Error() != tt.want {
				t.Errorf("a reader that failed read on: %v", r.Err())
			}
		})
	}
}

// The sections of modules that clang and the tests' hand writer make read
// in order, and written again with AppendSection they are the same bytes.
func TestSectionsOfRealModulesWriteBackTheSame(t *testing.T) {
	for name, wasm := range seeds(t) {
		r := wasmbin.NewReaderAt(wasm[wasmbin.HeaderLen:], wasmbin.HeaderLen)
		out := []byte(wasmbin.Header)
		var ids []byte
		for r.More() {
			id, payload := r.Section()
			out = wasmbin.AppendSection(out, id, wasm[payload.Start():payload.End()])
			ids = append(ids, id)
		}
		if r.Err() != nil || !bytes.Equal(out, wasm) {
			t.Errorf("%s: sections %v written back differ (error %v)", name, ids, r.Err())
		}
		if !bytes.Contains(ids, []byte{10}) {
			t.Errorf("%s: sections %v without code", name, ids)
		}
	}
}

// seeds are real modules: C pods built by clang (internal/testkit/testpods) and
// the tests' hand-written module.
func seeds(t testing.TB) map[string][]byte {
	return map[string][]byte{
		"c good":  testpods.Fixture(t, "good", 65536),
		"c relay": testpods.Fixture(t, "relay", 65536),
		"c simd":  testpods.Refused(t, "simd"),
		"hostile": testpods.Hostile{Functions: 2, Globals: 2, Table: 200, Types: 3, BrTable: 130, Locals: 300}.Wasm(),
		"padded":  testpods.Padded(testpods.Hostile{}.Wasm(), "debug", 300),
	}
}
