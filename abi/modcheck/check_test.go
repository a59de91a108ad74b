package modcheck

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func TestCheckAcceptsAValidPod(t *testing.T) {
	wasm := testpods.Fixture(t, "good", 65536)
	rep, err := Check(context.Background(), wasm, Options{MemoryLimit: 64 * 1024})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if rep.InitialPages != 1 || rep.ModuleBytes != len(wasm) {
		t.Errorf("report = %+v, want 1 initial page and %d bytes", rep, len(wasm))
	}
	for _, imp := range []string{"k32.k32_log", "wasi_snapshot_preview1.fd_write"} {
		if !slices.Contains(rep.Imports, imp) {
			t.Errorf("imports %v lack %s", rep.Imports, imp)
		}
	}
	if !slices.Contains(rep.Exports, "k32_handle") || !slices.Contains(rep.Exports, "memory") {
		t.Errorf("exports %v lack k32_handle or memory", rep.Exports)
	}
}

func TestCheckNamesEachProblem(t *testing.T) {
	tests := []struct {
		name   string
		module string
		memory int
		limit  int64
		want   []string
	}{
		{"unknown k32 import", "unknown_import", 65536, 0,
			[]string{"import k32.k32_nope: not a k32_app_abi host function"}},
		{"wrong import and export signatures", "wrong_signature", 65536, 0,
			[]string{"import k32.k32_log: signature (i32, i32) -> i32, want (i32, i32, i32) -> i32",
				"export k32_handle: signature () -> (), want () -> i32"}},
		{"no entry export", "no_entry", 65536, 0,
			[]string{"no entry export: a pod exports at least one of k32_handle, k32_event, k32_main, _start"}},
		{"foreign imports", "foreign_imports", 65536, 0,
			[]string{`import env.host_thing: unknown import module "env"`,
				"import wasi_snapshot_preview1.proc_raise: not in the WASI preview 1 subset"}},
		{"initial memory over the limit", "bigmem", 17 * 65536, 64 * 1024,
			[]string{"initial memory 17 pages (1088Ki) exceeds resources.limits.memory 64Ki (1 page)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(context.Background(), testpods.Fixture(t, tt.module, tt.memory), Options{MemoryLimit: tt.limit})
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Check error = %v, want *Error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n lacks %q", err, w)
				}
			}
			if cerr.MemoryExceeded != (tt.module == "bigmem") {
				t.Errorf("MemoryExceeded = %v", cerr.MemoryExceeded)
			}
		})
	}
}

func TestCheckMemoryWithinLimitPasses(t *testing.T) {
	rep, err := Check(context.Background(), testpods.Fixture(t, "bigmem", 2*65536), Options{MemoryLimit: 128 * 1024})
	if err != nil || rep.InitialPages != 2 {
		t.Fatalf("Check = %+v, %v; want 2 pages and no error", rep, err)
	}
}

func TestCheckRejectsBadBinaries(t *testing.T) {
	for name, wasm := range map[string][]byte{
		"not wasm":  []byte("hello, world"),
		"truncated": []byte(wasmbin.Header + "\x01\x05"),
		"empty":     nil,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Check(context.Background(), wasm, Options{})
			if err == nil {
				t.Fatal("Check accepted a bad binary")
			}
			if !strings.Contains(err.Error(), "WebAssembly binary") {
				t.Errorf("error %q does not say the WebAssembly binary is bad", err)
			}
		})
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{65536: "64Ki", 1114112: "1088Ki", 1 << 20: "1Mi", 100: "100", 0: "0"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
