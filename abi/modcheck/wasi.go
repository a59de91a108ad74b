package modcheck

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// wasiSignatures holds the signature of every WASI preview 1 function, taken
// from wazero's own implementation (the one the node runs), so a module is
// checked against exactly what it will be linked with.
var wasiSignatures = sync.OnceValues(func() (map[string]signature, error) {
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	compiled, err := wasi_snapshot_preview1.NewBuilder(r).Compile(ctx)
	if err != nil {
		return nil, err
	}
	sigs := map[string]signature{}
	for name, def := range compiled.ExportedFunctions() {
		sigs[name] = sigOfDefinition(def)
	}
	return sigs, nil
})
