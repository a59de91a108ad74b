package abi

// Error codes returned by host functions, as Go constants.
const (
	ErrPerm        int32 = -1
	ErrNoEnt       int32 = -2
	ErrIntr        int32 = -4
	ErrIO          int32 = -5
	ErrTooBig      int32 = -7
	ErrNoMem       int32 = -12
	ErrFault       int32 = -14
	ErrBusy        int32 = -16
	ErrInval       int32 = -22
	ErrLoop        int32 = -40
	ErrTLS         int32 = -71
	ErrNotSup      int32 = -95
	ErrTimeout     int32 = -110
	ErrConnRefused int32 = -111
	ErrHostUnreach int32 = -113
	ErrCert        int32 = -129
)

// Errors is every K32_ERR_* code, ordered by code.
var Errors = []Error{
	{Name: "K32_ERR_PERM", Code: ErrPerm, Doc: "Missing capability, or a NetworkPolicy or the egress gateway refused the call."},
	{Name: "K32_ERR_NOENT", Code: ErrNoEnt, Doc: "No such value, file, Service, port, ready pod or host name."},
	{Name: "K32_ERR_INTR", Code: ErrIntr, Ext: true, Doc: "Interrupted because the pod is being stopped."},
	{Name: "K32_ERR_IO", Code: ErrIO, Doc: "Target node or host unreachable, or the connection failed."},
	{Name: "K32_ERR_TOOBIG", Code: ErrTooBig, Doc: "Response body exceeded resp_cap; the first resp_cap bytes are copied."},
	{Name: "K32_ERR_NOMEM", Code: ErrNoMem, Doc: "Insufficient native stack for an in-process call."},
	{Name: "K32_ERR_FAULT", Code: ErrFault, Doc: "Pointer or length out of bounds in linear memory."},
	{Name: "K32_ERR_BUSY", Code: ErrBusy, Doc: "Every TLS session of the control plane is in use; retry later."},
	{Name: "K32_ERR_INVAL", Code: ErrInval, Doc: "Malformed arguments, or a function used outside its callback."},
	{Name: "K32_ERR_LOOP", Code: ErrLoop, Doc: "Target pod already in X-Kube32-Call-Chain, or the chain reached 8."},
	{Name: "K32_ERR_TLS", Code: ErrTLS, Doc: "The TLS handshake failed."},
	{Name: "K32_ERR_NOTSUP", Code: ErrNotSup, Doc: "Not supported by this node."},
	{Name: "K32_ERR_TIMEOUT", Code: ErrTimeout, Doc: "No complete response within timeout_ms."},
	{Name: "K32_ERR_CONNREFUSED", Code: ErrConnRefused, Doc: "The host refused the connection."},
	{Name: "K32_ERR_HOSTUNREACH", Code: ErrHostUnreach, Doc: "No route to the host."},
	{Name: "K32_ERR_CERT", Code: ErrCert, Doc: "The certificate is not trusted, names another host, or is outside its validity dates."},
}

// ErrorName returns the K32_ERR_* name of code, or "" when code is not one.
func ErrorName(code int32) string {
	for _, e := range Errors {
		if e.Code == code {
			return e.Name
		}
	}
	return ""
}
