package modcheck

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
	"github.com/tetratelabs/wazero"
)

// Report describes a module that passed (or partly passed) the check.
type Report struct {
	ModuleBytes  int
	InitialPages uint32 // initial linear memory pages of the exported memory
	MaxPages     uint32 // 0 when none declared
	// StackBytes is the initial value of the stack pointer global (see
	// stack.go): a C pod's stack size; 0 for Go, or when there is none.
	StackBytes int64
	Imports    []string // "k32.k32_log", "wasi_snapshot_preview1.fd_write", ...
	Exports    []string // exported function and memory names, sorted
	// Features are the post-MVP features the module uses, allowed or not,
	// in the order of abi.WasmFeatures.
	Features []abi.WasmFeature
}

// Options say what a module is checked against.
type Options struct {
	// MemoryLimit is the most initial linear memory in bytes; 0 for no limit.
	MemoryLimit int64
	// Features are the post-MVP features the target runs; nil means the
	// ones every board of abi.Boards runs (a node under kube32 serve refuses
	// what no board would run).
	Features []abi.WasmFeature
}

// Error lists every problem Check found in a module.
type Error struct {
	// Problems are sentences, each naming the import, export or limit at fault.
	Problems []string
	// MemoryExceeded is true when the initial memory does not fit the limit;
	// a node reports such a pod as MemoryLimitExceeded rather than ModuleInvalid.
	MemoryExceeded bool
	// Unsupported are the features the module uses that the target does not
	// run; a node reports such a pod as UnsupportedWasmFeature.
	Unsupported []abi.WasmFeature
	// OverBudget names the module budgets exceeded, by their constant in
	// package abi ("FunctionLocalsMax"); a node reports such a pod as
	// ModuleLimitExceeded. The other problems are then not looked for.
	OverBudget []string
}

// Error joins the problems with "; ".
func (e *Error) Error() string { return strings.Join(e.Problems, "; ") }

// Check scans wasm for post-MVP features and the module budgets
// (abi.FunctionLocalsMax and the rest), compiles it (wazero interpreter:
// fast) and checks it against the ABI: no feature outside opts.Features,
// every import known (module k32 from abi.Functions,
// wasi_snapshot_preview1 from abi.WASISubset) with the right signature,
// memory exported as "memory", one of abi.EntryExports present with the
// right signature, initial memory within opts.MemoryLimit. A module over a
// budget is refused before wazero sees it. The error lists every problem,
// each naming the function, import, export or limit; callers prefix the
// pod name. A failed check returns an *Error, except for an unreadable
// binary.
func Check(ctx context.Context, wasm []byte, opts Options) (Report, error) {
	rep := Report{ModuleBytes: len(wasm)}
	if !bytes.HasPrefix(wasm, []byte(wasmbin.Magic)) {
		return rep, fmt.Errorf("not a WebAssembly binary: it does not start with \\0asm (%d bytes)", len(wasm))
	}
	// The scan goes first: wazero runs some features the boards do not and
	// refuses others with errors that name neither feature nor function.
	// What the scan cannot follow is refused here, before wazero allocates
	// what a damaged section's counts claim.
	scan, err := scanFeatures(wasm)
	if err != nil {
		return rep, fmt.Errorf("invalid WebAssembly binary: %w", err)
	}
	// Over a budget (budget.go) the module goes no further: what wazero
	// would spend on it is what the budgets bound.
	if problems, limits := scan.budgetProblems(); len(problems) > 0 {
		return rep, &Error{Problems: problems, OverBudget: limits}
	}
	rep.Features = scan.features()
	problems, unsupported := scan.problems(runner(opts.Features))
	// The interpreter only decodes and validates; no machine code is made.
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	compiled, err := r.CompileModule(ctx, wasm)
	if err != nil {
		if len(problems) > 0 { // wazero's reason is most likely the feature named
			return rep, &Error{Problems: problems, Unsupported: unsupported}
		}
		return rep, fmt.Errorf("invalid WebAssembly binary: %w", err)
	}
	defer compiled.Close(ctx)

	// The stack is a figure for the fit report, not a rule: a module that
	// wazero accepts but the reader cannot follow reports 0, unknown.
	rep.StackBytes, _ = stackBytes(wasm)

	problems = append(problems, checkImports(compiled, &rep)...)
	problems = append(problems, checkExports(compiled, &rep)...)
	memProblems, exceeded := checkMemory(compiled, &rep, opts.MemoryLimit)
	problems = append(problems, memProblems...)
	if len(problems) > 0 {
		return rep, &Error{Problems: problems, MemoryExceeded: exceeded, Unsupported: unsupported}
	}
	return rep, nil
}

// runner reports whether a feature is in features, or with nil features
// whether every board runs it.
func runner(features []abi.WasmFeature) func(abi.WasmFeature) bool {
	if features == nil {
		features = abi.CommonFeatures()
	}
	return func(f abi.WasmFeature) bool { return slices.Contains(features, f) }
}

// checkImports checks every imported function and memory.
func checkImports(compiled wazero.CompiledModule, rep *Report) []string {
	var problems []string
	wasiSigs, wasiErr := wasiSignatures()
	for _, def := range compiled.ImportedFunctions() {
		module, name, _ := def.Import()
		full := module + "." + name
		rep.Imports = append(rep.Imports, full)
		got := sigOfDefinition(def)
		switch module {
		case abi.Module:
			f, ok := abi.Lookup(name)
			if !ok {
				problems = append(problems, fmt.Sprintf("import %s: not a k32_app_abi host function", full))
				continue
			}
			if want := sigOfFunction(f); !got.equal(want) {
				problems = append(problems, fmt.Sprintf("import %s: signature %s, want %s", full, got, want))
			}
		case abi.WASIModule:
			if !abi.InWASISubset(name) {
				problems = append(problems, fmt.Sprintf("import %s: not in the WASI preview 1 subset a node provides", full))
				continue
			}
			if wasiErr != nil {
				problems = append(problems, fmt.Sprintf("import %s: cannot load WASI signatures: %v", full, wasiErr))
				continue
			}
			if want, ok := wasiSigs[name]; ok && !got.equal(want) {
				problems = append(problems, fmt.Sprintf("import %s: signature %s, want %s", full, got, want))
			}
		default:
			problems = append(problems, fmt.Sprintf("import %s: unknown import module %q; a pod imports only from %q and %q",
				full, module, abi.Module, abi.WASIModule))
		}
	}
	for _, def := range compiled.ImportedMemories() {
		module, name, _ := def.Import()
		full := module + "." + name
		rep.Imports = append(rep.Imports, full)
		problems = append(problems, fmt.Sprintf("import %s: a pod cannot import memory; define and export it as \"memory\" (do not link with --import-memory)", full))
	}
	return problems
}

// checkExports checks the signatures of the ABI exports and that an entry export exists.
func checkExports(compiled wazero.CompiledModule, rep *Report) []string {
	var problems []string
	funcs := compiled.ExportedFunctions()
	for name := range funcs {
		rep.Exports = append(rep.Exports, name)
	}
	for name := range compiled.ExportedMemories() {
		rep.Exports = append(rep.Exports, name)
	}
	sort.Strings(rep.Exports)

	for _, e := range abi.Exports {
		def, ok := funcs[e.Name]
		if !ok {
			continue
		}
		if got, want := sigOfDefinition(def), sigOfExport(e); !got.equal(want) {
			problems = append(problems, fmt.Sprintf("export %s: signature %s, want %s", e.Name, got, want))
		}
	}
	hasEntry := false
	for _, name := range abi.EntryExports {
		if _, ok := funcs[name]; ok {
			hasEntry = true
		}
	}
	if !hasEntry {
		problems = append(problems, "no entry export: a pod exports at least one of "+strings.Join(abi.EntryExports, ", "))
	}
	return problems
}

// checkMemory checks the exported memory against the limit.
func checkMemory(compiled wazero.CompiledModule, rep *Report, memoryLimit int64) (problems []string, exceeded bool) {
	mem, ok := compiled.ExportedMemories()["memory"]
	if !ok {
		return []string{"export memory: missing; a pod exports its linear memory as \"memory\""}, false
	}
	rep.InitialPages = mem.Min()
	if max, ok := mem.Max(); ok {
		rep.MaxPages = max
	}
	if memoryLimit <= 0 {
		return nil, false
	}
	if capPages := CapPages(memoryLimit); rep.InitialPages > capPages {
		return []string{fmt.Sprintf("initial memory %s exceeds resources.limits.memory %s (%s)",
			FormatPages(rep.InitialPages), FormatBytes(memoryLimit), Pages(capPages))}, true
	}
	return nil, false
}
