package abi

import (
	"fmt"
	"strconv"
)

// Errno is a K32_ERR_* code. As a Go error it names the code, so a host
// component returns it (possibly wrapped) to give the pod that exact code.
type Errno int32

// Error codes returned by host functions.
const (
	ErrPerm        Errno = -1
	ErrNoEnt       Errno = -2
	ErrIntr        Errno = -4
	ErrIO          Errno = -5
	ErrTooBig      Errno = -7
	ErrNoMem       Errno = -12
	ErrFault       Errno = -14
	ErrBusy        Errno = -16
	ErrInval       Errno = -22
	ErrLoop        Errno = -40
	ErrTLS         Errno = -71
	ErrNotSup      Errno = -95
	ErrTimeout     Errno = -110
	ErrConnRefused Errno = -111
	ErrHostUnreach Errno = -113
	ErrCert        Errno = -129
)

// Errors is every K32_ERR_* code, ordered by code.
var Errors = []Error{
	{Name: "K32_ERR_PERM", Code: ErrPerm, Doc: "Missing capability, or a NetworkPolicy or the egress gateway refused the call."},
	{Name: "K32_ERR_NOENT", Code: ErrNoEnt, Doc: "No such value, file, Service, port, ready pod or host name."},
	{Name: "K32_ERR_INTR", Code: ErrIntr, Ext: true, Doc: "Interrupted because the pod is being stopped."},
	{Name: "K32_ERR_IO", Code: ErrIO, Doc: "Target node or host unreachable, or the connection failed."},
	{Name: "K32_ERR_TOOBIG", Code: ErrTooBig, Doc: "Response body exceeded resp_cap (the first resp_cap bytes are copied), or an argument exceeded its limit (limits.md)."},
	{Name: "K32_ERR_NOMEM", Code: ErrNoMem, Doc: "Insufficient native stack for an in-process call."},
	{Name: "K32_ERR_FAULT", Code: ErrFault, Doc: "Pointer or length out of bounds in linear memory."},
	{Name: "K32_ERR_BUSY", Code: ErrBusy, Doc: "Every TLS session of the control plane is in use; retry later."},
	{Name: "K32_ERR_INVAL", Code: ErrInval, Doc: "Malformed arguments, or a function used outside its callback."},
	{Name: "K32_ERR_LOOP", Code: ErrLoop, Doc: "Target pod already in " + HeaderCallChain + ", or the chain reached " + strconv.Itoa(CallChainMax) + "."},
	{Name: "K32_ERR_TLS", Code: ErrTLS, Doc: "The TLS handshake failed."},
	{Name: "K32_ERR_NOTSUP", Code: ErrNotSup, Doc: "Not supported by this node."},
	{Name: "K32_ERR_TIMEOUT", Code: ErrTimeout, Doc: "No complete response within timeout_ms."},
	{Name: "K32_ERR_CONNREFUSED", Code: ErrConnRefused, Doc: "The host refused the connection."},
	{Name: "K32_ERR_HOSTUNREACH", Code: ErrHostUnreach, Doc: "No route to the host."},
	{Name: "K32_ERR_CERT", Code: ErrCert, Doc: "The certificate is not trusted, names another host, or is outside its validity dates."},
}

// Name is the K32_ERR_* name of e, or "" when e is not one of Errors.
func (e Errno) Name() string {
	for _, x := range Errors {
		if x.Code == e {
			return x.Name
		}
	}
	return ""
}

// Error is the K32_ERR_* name of e, or "k32 error <n>" for an unknown code.
func (e Errno) Error() string {
	if name := e.Name(); name != "" {
		return name
	}
	return fmt.Sprintf("k32 error %d", int32(e))
}
