package modcheck

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// The hostile modules that once took serve gigabytes or tens of seconds of
// CPU to compile, and one over each other budget, each refused with a
// message naming the limit and the function (or the module), before
// wazero compiles anything.
var overBudgetModules = []struct {
	name   string
	module testpods.Hostile
	limit  string
	want   string
}{
	{"20M locals", testpods.Hostile{Locals: 20_000_000}, "FunctionLocalsMax",
		`function "handle" declares 20000000 locals, over the limit of 50000 (abi.FunctionLocalsMax)`},
	{"100k nested blocks", testpods.Hostile{Depth: 100_000}, "BlockDepthMax",
		`function "handle" nests blocks deeper than the limit of 16384 (abi.BlockDepthMax)`},
	{"500k-entry br_table", testpods.Hostile{BrTable: 500_000}, "BrTableTargetsMax",
		`function "handle" has a br_table of 500000 targets, over the limit of 16384 (abi.BrTableTargetsMax)`},
	{"a 1 MiB function", testpods.Hostile{Nops: abi.FunctionBytesMax}, "FunctionBytesMax",
		fmt.Sprintf(`function "handle" is %d bytes long, over the limit of %d (abi.FunctionBytesMax)`, abi.FunctionBytesMax+4, abi.FunctionBytesMax)},
	{"17 MiB of code", testpods.Hostile{Functions: 17, Nops: 1<<20 - 8}, "CodeBytesMax",
		`the module has 17825776 bytes of code, over the limit of 16777216 (abi.CodeBytesMax)`},
	{"too many functions", testpods.Hostile{Functions: abi.FunctionsMax + 1}, "FunctionsMax",
		`the module has 100001 functions, over the limit of 100000 (abi.FunctionsMax)`},
	{"too many globals", testpods.Hostile{Globals: abi.GlobalsMax + 1}, "GlobalsMax",
		`the module has 65537 globals, over the limit of 65536 (abi.GlobalsMax)`},
	{"too many types", testpods.Hostile{Types: abi.TypesMax}, "TypesMax",
		`the module has 65537 types, over the limit of 65536 (abi.TypesMax)`},
	{"a huge table", testpods.Hostile{Table: 100_000_000}, "TableEntriesMax",
		`table 0 starts with 100000000 entries, over the limit of 262144 (abi.TableEntriesMax)`},
	{"locals in many functions", testpods.Hostile{Functions: 21, Locals: abi.FunctionLocalsMax}, "ModuleLocalsMax",
		`the module declares 1050000 locals in its functions up to function[20], over the limit of 1048576 (abi.ModuleLocalsMax)`},
	{"10M custom sections", testpods.Hostile{Sections: 10_000_000}, "SectionsMax",
		`the module has more sections than the limit of 4096 (abi.SectionsMax)`},
	{"many functions of many blocks", testpods.Hostile{Functions: 40, Blocks: 4000}, "CompileWeightMax",
		`the module weighs 544000000 to compile up to function[33] (function "k32_handle" weighs 16000000), over the limit of 536870912 (abi.CompileWeightMax)`},
}

func TestCheckRefusesModulesOverABudget(t *testing.T) {
	for _, tt := range overBudgetModules {
		t.Run(tt.name, func(t *testing.T) {
			wasm := tt.module.Wasm()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Check(context.Background(), wasm, Options{MemoryLimit: 64 << 10})
			runtime.ReadMemStats(&after)
			var cerr *Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Check error = %v, want *Error", err)
			}
			if !slices.Equal(cerr.OverBudget, []string{tt.limit}) || len(cerr.Problems) != 1 || !strings.HasPrefix(cerr.Problems[0], tt.want) {
				t.Errorf("OverBudget %v, problems %q\nwant [%s] and one problem starting %q", cerr.OverBudget, cerr.Problems, tt.limit, tt.want)
			}
			if !strings.HasSuffix(err.Error(), "the boards' interpreter would not load it (see docs/boards.md)") {
				t.Errorf("error %q does not say why", err)
			}
			// The refusal costs about the module's own size: wazero, which
			// would have taken gigabytes for some, never saw it.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(wasm))+1<<20 {
				t.Errorf("refusing a %d-byte module allocated %d bytes", len(wasm), alloc)
			}
		})
	}
}

// TestModulesJustWithinTheBudgetsPass: the same hand-made modules at the
// limits (or below where a limit cannot be reached alone) pass the whole
// check, so that each refusal above is the budget's.
func TestModulesJustWithinTheBudgetsPass(t *testing.T) {
	for name, h := range map[string]testpods.Hostile{
		"no budget reached":         {},
		"FunctionLocalsMax locals":  {Locals: abi.FunctionLocalsMax},
		"BlockDepthMax deep":        {Depth: abi.BlockDepthMax},
		"BrTableTargetsMax targets": {BrTable: abi.BrTableTargetsMax},
		"FunctionBytesMax long":     {Nops: abi.FunctionBytesMax - 4},
		"GlobalsMax globals":        {Globals: abi.GlobalsMax},
		"TypesMax types":            {Types: abi.TypesMax - 1},
		"TableEntriesMax entries":   {Table: abi.TableEntriesMax},
		"CompileWeightMax weight":   {Functions: 2, Ifs: 8191},
		"SectionsMax sections":      {Sections: abi.SectionsMax - 6},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Check(context.Background(), h.Wasm(), Options{MemoryLimit: 64 << 10}); err != nil {
				t.Errorf("Check: %v", err)
			}
		})
	}
}

// TestOverBudgetNamesAFewFunctions: each function over its budget is
// named, up to maxOverBudget, then counted.
func TestOverBudgetNamesAFewFunctions(t *testing.T) {
	_, err := Check(context.Background(), testpods.Hostile{Functions: 8, Depth: abi.BlockDepthMax + 1}.Wasm(), Options{})
	var cerr *Error
	if !errors.As(err, &cerr) || len(cerr.Problems) != maxOverBudget+1 {
		t.Fatalf("Check error %v, want %d problems", err, maxOverBudget+1)
	}
	for i, want := range []string{`function "handle" nests`, "function[1] nests", "function[4] nests", "and 3 more functions over their budgets"} {
		if i == 3 {
			i = maxOverBudget
		} else if i == 2 {
			i = 4
		}
		if !strings.HasPrefix(cerr.Problems[i], want) {
			t.Errorf("problem %d = %q, want it to start %q", i, cerr.Problems[i], want)
		}
	}
}

// TestRealPodsAreFarWithinTheBudgets: the C test pods and a Go pod
// reach a small part of each budget (the figures of docs/boards.md,
// "Module budgets", come from the largest Go pods).
func TestRealPodsAreFarWithinTheBudgets(t *testing.T) {
	for name, wasm := range map[string][]byte{"go membomb": testpods.Go(t, "membomb"), "c good": testpods.Fixture(t, "good", 65536)} {
		scan, err := scanFeatures(wasm)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if problems, _ := scan.budgetProblems(); len(problems) > 0 {
			t.Errorf("%s: %q", name, problems)
		}
		f := scan.fig
		t.Logf("%s: %d bytes of code in %d functions, largest body %d bytes, %d locals at most (%d in all), blocks %d deep, br_table of %d, weight %d, table %d, %d sections",
			name, f.codeBytes, f.functions, f.bodyBytes, f.locals, f.totalLocals, f.depth, f.brTable, f.weight, f.tableEntries, f.sections)
		for what, ratio := range map[string]float64{
			"body": float64(f.bodyBytes) / abi.FunctionBytesMax, "depth": float64(f.depth) / abi.BlockDepthMax,
			"br_table": float64(f.brTable) / abi.BrTableTargetsMax, "weight": float64(f.weight) / abi.CompileWeightMax,
			"code": float64(f.codeBytes) / abi.CodeBytesMax, "functions": float64(f.functions) / abi.FunctionsMax,
			"sections": float64(f.sections) / abi.SectionsMax,
		} {
			if ratio > 0.25 {
				t.Errorf("%s reaches %.0f%% of the %s budget: too close for a small pod", name, ratio*100, what)
			}
		}
	}
}
