// Package abi is the k32_app_abi contract as data: the host functions a pod
// imports from module "k32", the exports a pod offers, the error codes and
// the WASI subset. Everything else (host registration, the C header, the
// docs, the build-time module check, the Go SDK's imports) is generated from
// or checked against these tables, so they are the one source of truth.
package abi

// Module is the import module name of every host function.
const Module = "k32"

// Type is the ABI type of a parameter or result. Several ABI types share one
// WebAssembly value type: a pointer and a length are both i32 on the wire.
type Type string

// ABI types.
const (
	Ptr Type = "ptr" // u32 offset into the pod's linear memory
	U32 Type = "u32"
	I32 Type = "i32"
	I64 Type = "i64"
)

// WasmType is the WebAssembly value type that carries t: "i32" or "i64".
func (t Type) WasmType() string {
	if t == I64 {
		return "i64"
	}
	return "i32"
}

// Capability gates a host function: a container must add it in
// securityContext.capabilities.add to use the function.
type Capability string

// The capabilities of docs/abi.md ("Host functions", column capability).
const (
	NoCapability Capability = ""
	ServiceCall  Capability = "SERVICE_CALL"
	ChannelIPC   Capability = "CHANNEL_IPC"
)

// Param is one named parameter of a host function.
type Param struct {
	Name string
	Type Type
}

// Function is one host function imported from module "k32".
type Function struct {
	Name       string
	Params     []Param
	Results    []Type
	Capability Capability
	// Ext marks kube32 additions, shown as (ext) in docs/abi.md.
	Ext bool
	Doc string
}

// Export is one export a pod module may offer.
type Export struct {
	Name    string
	Params  []Type
	Results []Type
	Ext     bool
	Doc     string
}

// Error is one K32_ERR_* code.
type Error struct {
	Name string // e.g. "K32_ERR_PERM"
	Code Errno
	Ext  bool
	Doc  string
}
