// Package lower turns a pod written against the WIT world kube32:app/pod
// (abi/k32.wit) into the core module the boards run: it unwraps a
// WebAssembly component to its one core module (component.go) and renames
// the imports of kube32:app/k32@VERSION and the world's kebab-case exports
// to the board's names (module "k32", k32_env_get, k32_handle …), rewriting
// only the import and export sections so every other byte stays as the
// compiler wrote it. The names come from the abi package (abi.CoreName), the
// one home of the WIT rule. docs/components.md says what is lowered and what
// is refused.
package lower
