package outbound

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/kube32/kube32/abi"
)

// The one table between K32_ERR_* codes and HTTP statuses, for the two
// protocols a worker speaks with the control plane (docs/calls.md, "The
// egress gateway"; docs/nodes.md, "The uplink"): the server answers a
// call that failed before the host answered with a 4xx/5xx status and the
// code in abi.HeaderEgressResult; the client reads the code, or, from an
// API server that sent none, the status.

// errnoStatuses is the status of an answer carrying a code; any other code
// is 502 Bad Gateway.
var errnoStatuses = map[abi.Errno]int{
	abi.ErrPerm:    http.StatusForbidden,
	abi.ErrInval:   http.StatusBadRequest,
	abi.ErrTimeout: http.StatusGatewayTimeout,
	abi.ErrBusy:    http.StatusServiceUnavailable,
}

// statusErrnos is the code of an answer without abi.HeaderEgressResult:
// the API server refused the node (401, 403) or has no gateway (404); any
// other status is K32_ERR_IO.
var statusErrnos = map[int]abi.Errno{
	http.StatusUnauthorized: abi.ErrPerm,
	http.StatusForbidden:    abi.ErrPerm,
	http.StatusNotFound:     abi.ErrNotSup,
}

// writeErrno answers code: its status, the code in
// abi.HeaderEgressResult, and Retry-After when the sessions are busy.
func writeErrno(w http.ResponseWriter, code abi.Errno) {
	status, ok := errnoStatuses[code]
	if !ok {
		status = http.StatusBadGateway
	}
	if code == abi.ErrBusy {
		w.Header().Set("Retry-After", strconv.Itoa(int(abi.RetryAfterGatewayBusy/time.Second)))
	}
	w.Header().Set(abi.HeaderEgressResult, strconv.Itoa(int(code)))
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, code.Name()+"\n")
}

// answerErrno reads the code of an answer that is not the host's: the one
// in abi.HeaderEgressResult, else the one its status stands for. ok is
// false for the host's own answer (a status in the header).
func answerErrno(resp *http.Response) (code abi.Errno, ok bool) {
	n, err := strconv.Atoi(resp.Header.Get(abi.HeaderEgressResult))
	switch {
	case err == nil && n < 0:
		return abi.Errno(n), true
	case err == nil:
		return 0, false
	}
	if code, found := statusErrnos[resp.StatusCode]; found {
		return code, true
	}
	return abi.ErrIO, true
}
