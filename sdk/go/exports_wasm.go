//go:build wasm

package k32

// The callbacks a pod exports. They live in this file alone because
// //go:wasmexport exists only on WebAssembly; their bodies are plain Go that
// compiles everywhere.

// k32Handle serves one HTTP request with the pod's Handler.
//
//lint:ignore U1000 the node calls it through the wasm export
//go:wasmexport k32_handle
func k32Handle() int32 { return serveRequest() }

// k32EventExport delivers one channel message to the OnEvent function.
//
//lint:ignore U1000 the node calls it through the wasm export
//go:wasmexport k32_event
func k32EventExport() int32 { return serveEvent() }

// k32InitExport runs the OnInit functions once at pod start.
//
//lint:ignore U1000 the node calls it through the wasm export
//go:wasmexport k32_init
func k32InitExport() int32 { return runInit() }
