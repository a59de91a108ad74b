package outbound

import (
	"github.com/kube32/kube32/abi"
)

// DeniedError is a connection NetworkPolicy refused. The pod gets
// K32_ERR_PERM (it unwraps to abi.Errno(K32_ERR_PERM)); the node logs
// "[NETPOL] <pod> -> <target> denied: <reason>" from Error.
type DeniedError struct {
	From   string // the calling pod, "<namespace>/<name>"
	Target string // the Service ("<service>.<namespace>:<port>") or host ("<address>:<port>")
	Reason string
}

// Error is the [NETPOL] line without its tag.
func (e *DeniedError) Error() string { return e.From + " -> " + e.Target + " denied: " + e.Reason }

// Unwrap gives the code the pod gets.
func (e *DeniedError) Unwrap() error { return abi.ErrPerm }
