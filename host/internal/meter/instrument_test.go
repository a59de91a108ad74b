package meter

import (
	"context"
	"errors"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

var model = abi.Boards[0].Time

// metered is an instrumented module instantiated in wazero.
type metered struct {
	mod                        api.Module
	instrs, millicycles, limit api.MutableGlobal
}

func instantiate(t *testing.T, wasm []byte) *metered {
	t.Helper()
	out, err := Instrument(wasm, model)
	if err != nil {
		t.Fatalf("Instrument: %v", err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	mod, err := rt.InstantiateWithConfig(ctx, out, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatalf("instantiating the instrumented module: %v", err)
	}
	g := func(name string) api.MutableGlobal {
		mg, ok := mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			t.Fatalf("the instrumented module exports no mutable global %s", name)
		}
		return mg
	}
	return &metered{mod, g(InstructionsGlobal), g(MillicyclesGlobal), g(LimitGlobal)}
}

// call runs fn(n) from zeroed counters and returns its result and counts.
func (m *metered) call(t *testing.T, fn string, n uint64) (result, instrs, millicycles uint64, err error) {
	t.Helper()
	m.instrs.Set(0)
	m.millicycles.Set(0)
	res, err := m.mod.ExportedFunction(fn).Call(context.Background(), n)
	if err == nil {
		result = res[0]
	}
	return result, m.instrs.Get(), m.millicycles.Get(), err
}

// The counts are deterministic and proportional to work: the same call
// gives the same counts, and a loop of n rounds costs a fixed part plus n
// times the same round, for several n (docs/boards.md, "Time on the
// board").
func TestCountsAreDeterministicAndLinearInWork(t *testing.T) {
	wasm := testpods.C(t, "testdata/work.c", 2*65536)
	m := instantiate(t, wasm)
	for _, fn := range []string{"work", "fwork"} {
		// Multiples of 1000, which the compiler's unrolled loops divide.
		ns := []uint64{1000, 2000, 5000, 10_000, 100_000}
		instrs := make([]uint64, len(ns))
		cycles := make([]uint64, len(ns))
		for i, n := range ns {
			_, a, c, err := m.call(t, fn, n)
			if err != nil {
				t.Fatalf("%s(%d): %v", fn, n, err)
			}
			_, a2, c2, _ := m.call(t, fn, n)
			if a != a2 || c != c2 {
				t.Fatalf("%s(%d) counted %d instructions (%d millicycles), then %d (%d): not deterministic", fn, n, a, c, a2, c2)
			}
			instrs[i], cycles[i] = a, c
		}
		// Linear: each count less the first grows as n less the first.
		step := ns[1] - ns[0]
		if instrs[1] <= instrs[0] {
			t.Fatalf("%s: %d rounds more cost no instruction more: %v", fn, step, instrs)
		}
		for i, n := range ns {
			if (instrs[i]-instrs[0])*step != (instrs[1]-instrs[0])*(n-ns[0]) {
				t.Errorf("%s: counts %v for rounds %v do not grow linearly", fn, instrs, ns)
			}
			if (cycles[i]-cycles[0])*step != (cycles[1]-cycles[0])*(n-ns[0]) {
				t.Errorf("%s: costs %v for rounds %v do not grow linearly", fn, cycles, ns)
			}
		}
		t.Logf("%s: %.2f instructions, %.1f cycles per round", fn, float64(instrs[1]-instrs[0])/float64(step),
			float64(cycles[1]-cycles[0])/float64(step)/1000)
	}
	// Results are those of the module as built.
	plain := wazero.NewRuntime(context.Background())
	defer plain.Close(context.Background())
	orig, err := plain.InstantiateWithConfig(context.Background(), wasm, wazero.NewModuleConfig().WithStartFunctions())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []uint64{0, 1, 12345} {
		want, _ := orig.ExportedFunction("work").Call(context.Background(), n)
		got, _, _, _ := m.call(t, "work", n)
		if got != want[0] {
			t.Errorf("work(%d) = %d instrumented, %d as built", n, got, want[0])
		}
	}
}

// Each instruction is charged by its class: a hand-written loop of known
// instructions costs exactly what the model's figures for them add up to.
func TestCostIsTheModelsCyclesPerClass(t *testing.T) {
	// (func (param i32) (result i32) (local i32)
	//   loop
	//     local.get 1  i32.const 1  i32.add  local.set 1
	//     local.get 1  local.get 0  i32.lt_u  br_if 0
	//   end
	//   local.get 1)
	code := []byte{0x01, 0x01, 0x7F, // one local i32
		0x03, 0x40,
		0x20, 1, 0x41, 1, 0x6A, 0x21, 1,
		0x20, 1, 0x20, 0, 0x49, 0x0D, 0,
		0x0B,
		0x20, 1,
		0x0B}
	m := instantiate(t, oneFunction(code))
	c := model.Instructions
	for _, n := range []uint64{1, 7, 1000} {
		res, instrs, millicycles, err := m.call(t, "f", n)
		if err != nil || res != n {
			t.Fatalf("f(%d) = %d, %v", n, res, err)
		}
		// loop; n rounds of 7 plain and a br_if; end; local.get; end.
		if want := 1 + 8*n + 1 + 2; instrs != want {
			t.Errorf("f(%d) counted %d instructions, want %d", n, instrs, want)
		}
		cycles := c.Block + float64(n)*(7*c.Plain+c.Branch) + c.Block + c.Plain + c.Block
		if want := uint64(cycles * 1000); millicycles != want {
			t.Errorf("f(%d) cost %d millicycles, want %d", n, millicycles, want)
		}
	}
}

// Past the limit, a loop stops at its next round with a trap, as the
// board's watchdog stops a callback.
func TestLimitStopsALoop(t *testing.T) {
	wasm := testpods.C(t, "testdata/work.c", 2*65536)
	m := instantiate(t, wasm)
	m.limit.Set(1_000_000) // a thousand cycles
	_, instrs, millicycles, err := m.call(t, "work", 1<<30)
	if err == nil {
		t.Fatal("work(2^30) under a limit of 1000 cycles returned")
	}
	var exit interface{ ExitCode() uint32 }
	if errors.As(err, &exit) {
		t.Fatalf("work stopped with an exit, not a trap: %v", err)
	}
	// At most a function's entry and one round of its loop past it.
	if millicycles <= 1_000_000 || millicycles > 10_000_000 {
		t.Errorf("work stopped at %d millicycles (%d instructions); want just past the limit of 1000000", millicycles, instrs)
	}
	m.limit.Set(NoLimit)
	if _, _, _, err := m.call(t, "work", 1000); err != nil {
		t.Errorf("after the limit is lifted: %v", err)
	}
}

// A module that already exports a name the counters take is refused, and
// the module as built is never changed.
func TestInstrumentKeepsTheInputAndRefusesATakenName(t *testing.T) {
	wasm := oneFunction([]byte{0, 0x20, 0, 0x0B})
	before := string(wasm)
	if _, err := Instrument(wasm, model); err != nil {
		t.Fatal(err)
	}
	if string(wasm) != before {
		t.Fatal("Instrument changed its input")
	}
	taken := oneFunctionExporting([]byte{0, 0x20, 0, 0x0B}, MillicyclesGlobal)
	if _, err := Instrument(taken, model); err == nil {
		t.Fatalf("a module exporting %s was instrumented", MillicyclesGlobal)
	}
}

// oneFunction is a module of one function f: (i32) -> i32 with the body
// code (locals and instructions).
func oneFunction(code []byte) []byte { return oneFunctionExporting(code, "f") }

func oneFunctionExporting(code []byte, name string) []byte {
	m := []byte(wasmbin.Header)
	m = wasmbin.AppendSection(m, 1, []byte{1, 0x60, 1, 0x7F, 1, 0x7F}) // type (i32) -> i32
	m = wasmbin.AppendSection(m, 3, []byte{1, 0})                      // one function of it
	exp := wasmbin.AppendName([]byte{1}, name)
	m = wasmbin.AppendSection(m, 7, append(exp, 0, 0))
	return wasmbin.AppendSection(m, 10, wasmbin.AppendName([]byte{1}, code))
}

// The modules compilers make for pods, C and Go (the largest: its
// runtime, its scheduler's br_tables), instrument to modules that wazero
// compiles and that behave as built: a Go pod's start runs to the same
// end, its work counted.
func TestInstrumentsWhatCompilersMake(t *testing.T) {
	ctx := context.Background()
	for name, wasm := range map[string][]byte{
		"c relay":    testpods.Fixture(t, "relay", 65536),
		"c faults":   testpods.Fixture(t, "faults", 65536),
		"go membomb": testpods.Go(t, "membomb"),
	} {
		t.Run(name, func(t *testing.T) {
			out, err := Instrument(wasm, model)
			if err != nil {
				t.Fatalf("Instrument: %v", err)
			}
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			if _, err := rt.CompileModule(ctx, out); err != nil {
				t.Fatalf("the instrumented module does not compile: %v", err)
			}
			t.Logf("%d bytes, %d instrumented (+%.0f%%)", len(wasm), len(out), 100*float64(len(out)-len(wasm))/float64(len(wasm)))
		})
	}
}
