package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/kube32/kube32/abi/images"
)

// childPlain is the memory baseline: one wazero Runtime with WASI and the
// module's other imports as functions that do nothing, the module compiled
// once and instantiated n times, each instance with its environment.
func childPlain(dir string, n int) error {
	ctx := context.Background()
	wasm, err := os.ReadFile(filepath.Join(os.Getenv("KUBE32_BENCH_IMAGES"), images.InRoot(images.Firmware, images.FirmwareWasmDir), imageName+".wasm"))
	if err != nil {
		return err
	}
	cache, err := wazero.NewCompilationCacheWithDir(os.Getenv("KUBE32_BENCH_CACHE"))
	if err != nil {
		return err
	}
	start := time.Now()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	if err := stubImports(ctx, rt, compiled); err != nil {
		return err
	}
	var mods []api.Module
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("page-%04d", i)
		m, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions().
			WithEnv("GREETING", "hello from "+name))
		if err != nil {
			return err
		}
		if init := m.ExportedFunction("_initialize"); init != nil {
			if _, err := init.Call(ctx); err != nil {
				return err
			}
		}
		mods = append(mods, m)
	}
	m := measurement{Pods: n, Running: len(mods), Ready: time.Since(start)}
	return printMeasurement(m)
}

// stubImports defines every function the module imports from modules other
// than WASI as one that returns zeros.
func stubImports(ctx context.Context, rt wazero.Runtime, compiled wazero.CompiledModule) error {
	builders := map[string]wazero.HostModuleBuilder{}
	for _, f := range compiled.ImportedFunctions() {
		module, name, _ := f.Import()
		if module == wasi_snapshot_preview1.ModuleName {
			continue
		}
		b, ok := builders[module]
		if !ok {
			b = rt.NewHostModuleBuilder(module)
			builders[module] = b
		}
		results := len(f.ResultTypes())
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
			clear(stack[:results])
		}), f.ParamTypes(), f.ResultTypes()).Export(name)
	}
	for module, b := range builders {
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("stub module %s: %w", module, err)
		}
	}
	return nil
}
