//go:build !wasm

package k32

// Off WebAssembly nothing exports the callbacks; this reference keeps them
// reachable for the tools (vet, staticcheck) that analyse the host build.
var _ = []func() int32{serveRequest, serveEvent, runInit}
