package outbound

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kube32/kube32/abi"
)

// A K32_ERR_* code a server half answers (the gateway, the relay) reaches
// the client half as the same code, with the status of the one table
// (docs/calls.md, "The egress gateway": "a 4xx/5xx status; 503 and
// Retry-After: 1 when both sessions are in use").
func TestErrnoCrossesTheWireUnchanged(t *testing.T) {
	for _, tt := range []struct {
		code   abi.Errno
		status int
	}{
		{abi.ErrPerm, 403}, {abi.ErrInval, 400}, {abi.ErrTimeout, 504}, {abi.ErrBusy, 503},
		{abi.ErrConnRefused, 502}, {abi.ErrHostUnreach, 502}, {abi.ErrIO, 502}, {abi.ErrCert, 502}, {abi.ErrTLS, 502},
	} {
		w := httptest.NewRecorder()
		writeErrno(w, tt.code)
		resp := w.Result()
		got, ok := answerErrno(resp)
		if resp.StatusCode != tt.status || !ok || got != tt.code {
			t.Errorf("%v: status %d, read back %v (%v); want %d and the code", tt.code, resp.StatusCode, got, ok, tt.status)
		}
		if busy := resp.Header.Get("Retry-After") == "1"; busy != (tt.code == abi.ErrBusy) {
			t.Errorf("%v: Retry-After %q", tt.code, resp.Header.Get("Retry-After"))
		}
	}
	// An API server that answers without a code: it refused the node, or
	// it has no gateway; the host's own answer carries its status instead.
	for status, want := range map[int]abi.Errno{401: abi.ErrPerm, 403: abi.ErrPerm, 404: abi.ErrNotSup, 500: abi.ErrIO, 405: abi.ErrIO} {
		if got, ok := answerErrno(&http.Response{StatusCode: status, Header: http.Header{}}); !ok || got != want {
			t.Errorf("status %d without a code: %v (%v), want %v", status, got, ok, want)
		}
	}
	if _, ok := answerErrno(&http.Response{StatusCode: 200, Header: http.Header{abi.HeaderEgressResult: {"201"}}}); ok {
		t.Error("the host's answer (its status in the header) read as a failure")
	}
}
