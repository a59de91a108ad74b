// Package wasmbin is the module's one reader of the WebAssembly binary
// format: the preamble, sections, LEB128 numbers, names, value types and
// limits, read with a sticky error so that bad input is an error, never a
// panic; and the few writers that the tools rewriting a module and the
// tests' module writers share (LEB128 both ways, a name, a section). The
// module check (abi/modcheck), the lowering of WIT names
// (bundler/internal/lower), the release step (internal/compile), the work
// counting (host/internal/meter) and the tests read and write modules with
// it (docs/design.md).
package wasmbin
