package modcheck

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// A C pod's stack pointer starts at the stack size it was linked with,
// whatever its memory; a Go module's starts at 0.
func TestCheckReadsTheStackSize(t *testing.T) {
	for _, tt := range []struct {
		name string
		wasm []byte
		want int64
	}{
		{"C pod, the default stack", testpods.Fixture(t, "good", 65536), 8192},
		{"C pod, a 16Ki stack", testpods.C(t, filepath.Join(testpods.Dir, "good.c"), 2*65536,
			"-I"+filepath.Join(testenv.ModuleRoot, "sdk", "c"), "-Wl,-z,stack-size=16384"), 16384},
		{"Go pod", testpods.Go(t, "membomb"), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Check(context.Background(), tt.wasm, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.StackBytes != tt.want {
				t.Errorf("StackBytes = %d, want %d", rep.StackBytes, tt.want)
			}
		})
	}
}

// module is a wasm binary of the given sections (id, body).
func module(sections ...[]byte) []byte {
	b := []byte(wasmbin.Header)
	for i := 0; i+1 < len(sections); i += 2 {
		b = wasmbin.AppendSection(b, sections[i][0], sections[i+1])
	}
	return b
}

func TestStackBytesFindsTheStackPointerByName(t *testing.T) {
	importGlobal := []byte{1, 3, 'e', 'n', 'v', 1, 'g', kindGlobal, typeI32, 0}
	globals := []byte{3,
		typeI32, 0, opI32Const, 5, opEnd, // immutable
		typeI32, 1, opI32Const, 7, opEnd, // the first mutable i32
		typeI32, 1, opI32Const, 11, opEnd} // 11 is the end opcode's byte
	names := append([]byte{4, 'n', 'a', 'm', 'e', nameGlobals, 18, 1, 3, 15}, stackPointerName...)
	exportSP := append([]byte{1, 15}, append([]byte(stackPointerName), kindGlobal, 3)...)
	for _, tt := range []struct {
		name string
		wasm []byte
		want int64
	}{
		{"first mutable i32", module([]byte{sectionImport}, importGlobal, []byte{sectionGlobal}, globals), 7},
		{"named", module([]byte{sectionImport}, importGlobal, []byte{sectionGlobal}, globals, []byte{sectionCustom}, names), 11},
		{"exported", module([]byte{sectionImport}, importGlobal, []byte{sectionGlobal}, globals, []byte{sectionExport}, exportSP), 11},
		{"no globals", module(), 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stackBytes(tt.wasm)
			if err != nil || got != tt.want {
				t.Errorf("stackBytes = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	if _, err := stackBytes(module([]byte{sectionGlobal}, globals[:7])); err == nil {
		t.Error("a truncated global section read without an error")
	}
}
