package abi

// The C header sdk/c/k32_app_abi.h, the Rust SDK's sdk/rust/src/sys.rs,
// the AssemblyScript SDK's sdk/assemblyscript/k32/sys.ts,
// docs/abi.md, docs/limits.md and docs/boards.md are rendered from the
// tables of this package; gen_test.go fails when they are stale.
//go:generate go run ./internal/gen/cmd/abigen -root ..
