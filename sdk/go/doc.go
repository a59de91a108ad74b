// Package k32 is the Go guest SDK for kube32 pods: WebAssembly modules that a
// kube32 node (an ESP32 board, or `kube32 serve` on a computer) runs as the
// containers of its pods. It wraps the host functions of k32_app_abi (module
// "k32") in an API shaped like net/http's, and exports the callbacks the node
// calls: k32_handle for each HTTP request, k32_event for each channel
// message and k32_init at start.
//
// A Go pod is a WASI reactor: the node runs its package init functions once,
// never main, then calls the callbacks. So a pod registers its handlers from
// init:
//
//	package main
//
//	import k32 "github.com/kube32/kube32/sdk/go"
//
//	func init() {
//		k32.HandleFunc(func(w k32.ResponseWriter, r *k32.Request) {
//			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
//			w.Write([]byte("hello from " + k32.Getenv("POD_NAME") + "\n"))
//		})
//	}
//
//	func main() {} // required by package main; never called
//
// and builds with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o pod.wasm .
//
// The package is written for TinyGo too (no reflection, embed only off
// WebAssembly), though no test builds it with TinyGo yet. It has no
// dependencies and keeps fmt out of a pod that does not call Logf. Package k32http serves a net/http
// Handler instead, at the price of a larger module.
//
// One pod instance serves one callback at a time, so handlers need no locks
// for the pod's own state. Off WebAssembly every host function answers
// ErrNotSup, so code using the package compiles and unit-tests anywhere.
package k32
