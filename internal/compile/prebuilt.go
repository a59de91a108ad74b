package compile

import (
	"context"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/inputfile"
)

// prebuilt reads a pod given as a prebuilt .wasm (language wasm): a module
// or component made by other tools. Nothing compiles it; the build lowers
// and checks it as it does compiled modules (docs/components.md). It is
// read only if it is a regular file of at most abi.PrebuiltBytesMax bytes.
func prebuilt(ctx context.Context, job Job) (*Module, error) {
	wasm, err := inputfile.Read(ctx, job.SourceDir, abi.PrebuiltBytesMax, "abi.PrebuiltBytesMax")
	if err != nil {
		return nil, err
	}
	return &Module{Wasm: wasm}, nil
}
