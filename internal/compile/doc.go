// Package compile turns one pod's sources into a wasm module: C with clang
// for wasm32-wasi, Go with GOOS=wasip1. Builds are offline: the SDK headers
// and the Go SDK are written from the copies embedded in the kube32 binary
// into the project's build cache, and the Go module proxy is off.
package compile
