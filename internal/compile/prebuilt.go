package compile

import (
	"fmt"
	"os"
)

// prebuilt reads a pod given as a prebuilt .wasm (language wasm): a module
// or component made by other tools. Nothing compiles it; the build lowers
// and checks it as it does compiled modules (docs/components.md).
func prebuilt(job Job) (*Module, error) {
	info, err := os.Stat(job.SourceDir)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file (language wasm takes the prebuilt .wasm file)", job.fromRoot(job.SourceDir))
	}
	wasm, err := os.ReadFile(job.SourceDir)
	if err != nil {
		return nil, err
	}
	return &Module{Wasm: wasm}, nil
}
