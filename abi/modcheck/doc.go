// Package modcheck checks a WebAssembly module against k32_app_abi before a
// node runs it: every import must be a host function the node provides, with
// the signature the ABI gives it; the module must export its memory and at
// least one entry point; its initial memory must fit the pod's
// resources.limits.memory; and it must use no WebAssembly feature beyond the
// MVP that the boards' interpreter does not run (features.go decodes every
// instruction to find out, before wazero compiles); and it must keep within
// the module budgets (budget.go: locals, sizes, depth, br_table targets,
// counts), which the same scan counts before wazero sees the module, so
// that no module costs a node more than a bounded time and memory to
// refuse or compile. kube32 build runs it so that a bad pod fails at build
// time with the same words the node would put in the pod's status.
package modcheck
