// Package pod runs one container of a kube32 pod: a WebAssembly module under
// wazero, linked with the k32_app_abi host functions and a WASI preview 1
// subset, with the board's limits (linear memory cap, one callback at a time,
// a deadline per callback) and its lifecycle (start, k32_init, restarts per
// restartPolicy, stop).
//
// A guest can never take the process down: traps, endless loops, bad
// pointers and memory.grow past the cap all end as an error code, a 500, or
// a restart, and are logged in the pod's log. A pod never runs on from the
// state a trap left: the next callback finds a fresh instance (renew.go).
package pod
