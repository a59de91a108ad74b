package k32

import "strconv"

// Errno is a K32_ERR_* code returned by a host function. Functions of this
// package return it as their error, so callers can compare with errors.Is or
// ==:
//
//	if err := k32.Publish("chat", msg); err == k32.ErrPerm { … }
type Errno int32

// The K32_ERR_* codes of k32_app_abi, with the values of docs/abi.md ("Error
// codes"). The Go names are those of the abi package of kube32 (ErrPerm is
// K32_ERR_PERM).
const (
	ErrPerm        Errno = -1   // K32_ERR_PERM: missing capability, or refused by a NetworkPolicy
	ErrNoEnt       Errno = -2   // K32_ERR_NOENT: no such value, file, Service, port, ready pod or host
	ErrIntr        Errno = -4   // K32_ERR_INTR: interrupted because the pod is being stopped
	ErrIO          Errno = -5   // K32_ERR_IO: target unreachable or the connection failed
	ErrTooBig      Errno = -7   // K32_ERR_TOOBIG: the response body exceeded the buffer
	ErrNoMem       Errno = -12  // K32_ERR_NOMEM: insufficient native stack for an in-process call
	ErrFault       Errno = -14  // K32_ERR_FAULT: pointer or length out of bounds
	ErrBusy        Errno = -16  // K32_ERR_BUSY: every TLS session of the control plane is in use
	ErrInval       Errno = -22  // K32_ERR_INVAL: malformed arguments, or used outside its callback
	ErrLoop        Errno = -40  // K32_ERR_LOOP: call loop, or the call chain reached 8
	ErrTLS         Errno = -71  // K32_ERR_TLS: the TLS handshake failed
	ErrNotSup      Errno = -95  // K32_ERR_NOTSUP: not supported by this node
	ErrTimeout     Errno = -110 // K32_ERR_TIMEOUT: no complete response within the timeout
	ErrConnRefused Errno = -111 // K32_ERR_CONNREFUSED: the host refused the connection
	ErrHostUnreach Errno = -113 // K32_ERR_HOSTUNREACH: no route to the host
	ErrCert        Errno = -129 // K32_ERR_CERT: the certificate is not trusted or not valid
)

// errnoText names each code and says what it means, for Error.
var errnoText = map[Errno][2]string{
	ErrPerm:        {"K32_ERR_PERM", "permission denied (missing capability or refused by policy)"},
	ErrNoEnt:       {"K32_ERR_NOENT", "not found"},
	ErrIntr:        {"K32_ERR_INTR", "interrupted: the pod is being stopped"},
	ErrIO:          {"K32_ERR_IO", "i/o error: target unreachable or connection failed"},
	ErrTooBig:      {"K32_ERR_TOOBIG", "response body larger than the buffer"},
	ErrNoMem:       {"K32_ERR_NOMEM", "insufficient native stack"},
	ErrFault:       {"K32_ERR_FAULT", "pointer or length out of bounds"},
	ErrBusy:        {"K32_ERR_BUSY", "busy: every TLS session is in use, retry later"},
	ErrInval:       {"K32_ERR_INVAL", "invalid argument, or used outside its callback"},
	ErrLoop:        {"K32_ERR_LOOP", "call loop or call chain too long"},
	ErrTLS:         {"K32_ERR_TLS", "TLS handshake failed"},
	ErrNotSup:      {"K32_ERR_NOTSUP", "not supported by this node"},
	ErrTimeout:     {"K32_ERR_TIMEOUT", "timed out"},
	ErrConnRefused: {"K32_ERR_CONNREFUSED", "connection refused"},
	ErrHostUnreach: {"K32_ERR_HOSTUNREACH", "no route to host"},
	ErrCert:        {"K32_ERR_CERT", "certificate not trusted, for another host, or expired"},
}

// Name returns the K32_ERR_* name of e, or "" for an unknown code.
func (e Errno) Name() string { return errnoText[e][0] }

// Error returns e's name and meaning, e.g.
// "k32: K32_ERR_PERM: permission denied (missing capability or refused by policy)".
func (e Errno) Error() string {
	t, ok := errnoText[e]
	if !ok {
		return "k32: unknown error " + strconv.Itoa(int(e))
	}
	return "k32: " + t[0] + ": " + t[1]
}

// errnoOf turns a host function's result into an error: nil when it is not
// negative.
func errnoOf(ret int32) error {
	if ret >= 0 {
		return nil
	}
	return Errno(ret)
}
