package modcheck

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func TestCheckRefusesFeaturesNoBoardRuns(t *testing.T) {
	tests := []struct {
		fixture string
		feature abi.WasmFeature
		want    []string
	}{
		{"simd", abi.FeatureSIMD, []string{`function "vec_add" uses simd (v128.load); the boards' interpreter does not run it (see docs/boards.md)`}},
		{"atomics", abi.FeatureThreads, []string{`function "count_hit" uses threads (i32.atomic.rmw.add), and so do `, `memory 0 (shared memory)`}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			rep, err := Check(context.Background(), testpods.Refused(t, tt.fixture), Options{})
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Check error = %v, want *Error", err)
			}
			if !slices.Equal(cerr.Unsupported, []abi.WasmFeature{tt.feature}) || !slices.Contains(rep.Features, tt.feature) {
				t.Errorf("Unsupported = %v, Report.Features = %v; want %s in both", cerr.Unsupported, rep.Features, tt.feature)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// A target that runs the feature takes the module (wazero runs
			// SIMD without asking; threads it would refuse).
			if tt.feature == abi.FeatureSIMD {
				if _, err := Check(context.Background(), testpods.Refused(t, tt.fixture), Options{Features: []abi.WasmFeature{tt.feature}}); err != nil {
					t.Errorf("Check with %s allowed: %v", tt.feature, err)
				}
			}
		})
	}
}

// TestEveryTestPodPassesTheScan guards against false positives: every C
// test pod (built with kube32 build's flags) and a Go pod use only what the
// boards run, and the scan decodes all of their code.
func TestEveryTestPodPassesTheScan(t *testing.T) {
	srcs, err := filepath.Glob(filepath.Join(testpods.Dir, "*.c"))
	if err != nil || len(srcs) < 10 {
		t.Fatalf("C test pods %v, %v", srcs, err)
	}
	modules := map[string][]byte{"go membomb": testpods.Go(t, "membomb")}
	for _, src := range srcs {
		name := strings.TrimSuffix(filepath.Base(src), ".c")
		modules[name] = testpods.Fixture(t, name, 4<<20)
	}
	for name, wasm := range modules {
		scan, err := scanFeatures(wasm)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if problems, _ := scan.problems(runner(nil)); len(problems) > 0 {
			t.Errorf("%s: %q", name, problems)
		}
		t.Logf("%s uses %v", name, scan.features())
	}
}

// Hand-made modules for the features that clang does not emit on request.

func leb(n uint32) []byte { return wasmbin.AppendU32(nil, n) }

func section(id byte, payload ...byte) []byte { return wasmbin.AppendSection(nil, id, payload) }

// moduleWith is a module of one function () -> () with the given body
// (locals and code, without the final end), and the extra sections (which
// go after the function section and before the code section, as the
// binary format orders them: table, memory, global).
func moduleWith(body []byte, extra ...[]byte) []byte {
	m := []byte(wasmbin.Header)
	m = append(m, section(1, 1, 0x60, 0, 0)...)
	m = append(m, section(3, 1, 0)...)
	for _, s := range extra {
		m = append(m, s...)
	}
	fn := append([]byte{0}, append(body, 0x0B)...) // no locals
	code := append([]byte{1}, leb(uint32(len(fn)))...)
	m = append(m, section(10, append(code, fn...)...)...)
	// The name section calls function 0 "f".
	names := append([]byte{4}, "name"...)
	names = append(names, 1, 4, 1, 0, 1, 'f')
	return append(m, section(0, names...)...)
}

func TestScanNamesEachFeature(t *testing.T) {
	oneTable := section(4, 1, 0x70, 0, 1)
	tests := []struct {
		name   string
		module []byte
		want   abi.WasmFeature // "" for MVP
		what   string
	}{
		{"mvp", moduleWith([]byte{0x41, 0x7F, 0x1A}), "", ""},
		{"tail call", moduleWith([]byte{0x12, 0}), abi.FeatureTailCall, `function "f" uses tail-call (return_call)`},
		{"legacy exceptions", moduleWith([]byte{0x06, 0x40, 0x01, 0x19, 0x0B}), abi.FeatureExceptionHandling, `function "f" uses exception-handling (try)`},
		{"try_table", moduleWith([]byte{0x1F, 0x40, 1, 2, 0, 0x0B}), abi.FeatureExceptionHandling, `(try_table)`},
		{"tag section", moduleWith(nil, section(13, 1, 0, 0)), abi.FeatureExceptionHandling, "section tag uses exception-handling"},
		{"gc", moduleWith([]byte{0x41, 0, 0xFB, 28, 0x1A}), abi.FeatureGC, `function "f" uses gc (ref.i31)`},
		{"ref.null", moduleWith([]byte{0xD0, 0x70, 0xD1, 0x1A}), abi.FeatureReferenceTypes, `function "f" uses reference-types (ref.null)`},
		{"externref local", moduleWithLocals([]byte{1, 1, 0x6F}), abi.FeatureReferenceTypes, `function[0] uses reference-types (externref local)`},
		{"call_indirect on table 1", moduleWith([]byte{0x41, 0, 0x11, 0, 1}, section(4, 2, 0x70, 0, 1, 0x70, 0, 1)),
			abi.FeatureReferenceTypes, `function "f" uses reference-types (call_indirect on table 1), and so does the module (2 tables)`},
		{"call_indirect on table 0, long LEB", moduleWith([]byte{0x41, 0, 0x11, 0, 0x80, 0x80, 0x80, 0x80, 0}, oneTable), "", ""},
		{"memory64", moduleWith(nil, section(5, 1, 0x04, 1)), abi.FeatureMemory64, "memory 0 uses memory64 (64-bit memory)"},
		{"two memories", moduleWith(nil, section(5, 2, 0, 1, 0, 1)), abi.FeatureMultimemory, "the module uses multimemory (2 memories)"},
		{"memory.fill on memory 1", moduleWith([]byte{0x41, 0, 0x41, 0, 0x41, 0, 0xFC, 11, 1}, section(5, 1, 0, 1)),
			abi.FeatureMultimemory, `function "f" uses multimemory (memory.fill on memory 1)`},
		{"v128 global", moduleWith(nil, section(6, append([]byte{1, 0x7B, 0, 0xFD, 12}, append(make([]byte, 16), 0x0B)...)...)),
			abi.FeatureSIMD, "global 0 uses simd (v128 global)"},
		{"shared memory", moduleWith(nil, section(5, 1, 0x03, 1, 1)), abi.FeatureThreads, "memory 0 uses threads (shared memory)"},
		{"atomic.fence", moduleWith([]byte{0xFE, 3, 0}), abi.FeatureThreads, `function "f" uses threads (atomic.fence)`},
		{"i32.atomic.rmw8.add_u", moduleWith([]byte{0x41, 0, 0x41, 0, 0xFE, 0x20, 0, 0, 0x1A}),
			abi.FeatureThreads, `function "f" uses threads (i32.atomic.rmw8.add_u)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scan, err := scanFeatures(tt.module)
			if err != nil {
				t.Fatal(err)
			}
			problems, refused := scan.problems(runner(nil))
			if tt.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems %q, want none", problems)
				}
				return
			}
			if !slices.Contains(refused, tt.want) || !strings.Contains(strings.Join(problems, "\n"), tt.what) {
				t.Errorf("refused %v, problems %q; want %s and %q", refused, problems, tt.want, tt.what)
			}
		})
	}
}

// moduleWithLocals is a module of one function () -> () with the local
// declarations given and no code, and no name section.
func moduleWithLocals(locals []byte) []byte {
	fn := append(append([]byte{}, locals...), 0x0B)
	m := []byte(wasmbin.Header)
	m = append(m, section(1, 1, 0x60, 0, 0)...)
	m = append(m, section(3, 1, 0)...)
	return append(m, section(10, append(append([]byte{1}, leb(uint32(len(fn)))...), fn...)...)...)
}

func TestScanRecognisesTheFeaturesBoardsRun(t *testing.T) {
	body := []byte{
		0x41, 0, 0xC0, 0x1A, // i32.extend8_s
		0x43, 0, 0, 0, 0, 0xFC, 0, 0x1A, // i32.trunc_sat_f32_s
		0x41, 0, 0x41, 0, 0x41, 0, 0xFC, 10, 0, 0, // memory.copy
	}
	multi := append([]byte(wasmbin.Header), section(1, 2, 0x60, 0, 0, 0x60, 0, 2, 0x7F, 0x7F)...)
	rest := moduleWith(body, section(5, 1, 0, 1))[8+len(section(1, 1, 0x60, 0, 0)):]
	scan, err := scanFeatures(append(multi, rest...))
	if err != nil {
		t.Fatal(err)
	}
	want := []abi.WasmFeature{abi.FeatureSignExt, abi.FeatureNontrappingFloatToInt, abi.FeatureBulkMemory, abi.FeatureMultivalue}
	if got := scan.features(); !slices.Equal(got, want) {
		t.Errorf("features %v, want %v", got, want)
	}
	if problems, _ := scan.problems(runner(nil)); len(problems) > 0 {
		t.Errorf("problems %q, want none", problems)
	}
	if problems, _ := scan.problems(runner([]abi.WasmFeature{})); len(problems) != len(want) {
		t.Errorf("an MVP-only target: problems %q, want one per feature", problems)
	}
}

func TestCheckNamesAnUndecodableOpcode(t *testing.T) {
	_, err := Check(context.Background(), moduleWith([]byte{0x01, 0xFF}), Options{})
	var cerr *Error
	if !errors.As(err, &cerr) || len(cerr.Problems) != 1 || !strings.HasPrefix(cerr.Problems[0], `function "f": cannot decode opcode 0xff at offset 0x`) {
		t.Fatalf("Check error %v, want one problem naming function f and opcode 0xff", err)
	}
}

// FuzzScanFeatures: no input makes the scan panic, and Check never panics
// on what the scan takes.
func FuzzScanFeatures(f *testing.F) {
	for _, m := range [][]byte{
		testpods.Fixture(f, "good", 65536), testpods.Refused(f, "simd"), testpods.Refused(f, "atomics"),
		moduleWith([]byte{0x06, 0x40, 0x01, 0x19, 0x0B}), moduleWith([]byte{0x41, 0, 0xFB, 28, 0x1A}),
	} {
		f.Add(m)
		for _, cut := range []int{9, len(m) / 2, len(m) - 1} {
			f.Add(m[:cut])
		}
	}
	f.Add([]byte(wasmbin.Header + "\x0a\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		if !strings.HasPrefix(string(wasm), wasmbin.Magic) {
			return
		}
		if scan, err := scanFeatures(wasm); err == nil {
			scan.problems(runner(nil))
		}
		Check(context.Background(), wasm, Options{})
	})
}
