package call

import (
	"bytes"
	"context"
	"net/http"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/pod"
)

// callLocal calls a pod of this node in-process, on the caller's
// goroutine: the target's callback lock is taken with the call's deadline
// (the request's context), so two calls that cross each other's pods end
// in K32_ERR_TIMEOUT rather than a deadlock.
func callLocal(ctx context.Context, h http.Handler, t outbound.Target, call pod.Call) (pod.CallResult, error) {
	// pod.InProcessCall: the target's callback ends with ctx, the call's
	// deadline, since it runs on the caller's goroutine.
	req, err := http.NewRequestWithContext(pod.InProcessCall(ctx), call.Method, "http://"+t.HostHeader+t.RequestURI, bytes.NewReader(call.Body))
	if err != nil {
		return pod.CallResult{}, abi.ErrInval // a method net/http refuses
	}
	req.RequestURI = t.RequestURI
	req.Header = chainHeader(call)
	req.ContentLength = int64(len(call.Body))
	req.RemoteAddr = "127.0.0.1:0"
	w := &capWriter{header: http.Header{}, respCap: call.RespCap}
	h.ServeHTTP(w, req)
	if ctx.Err() != nil {
		return pod.CallResult{}, outbound.IOErrno(ctx, ctx.Err())
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return pod.CallResult{Status: w.status, Header: w.header, Body: w.body, Truncated: w.truncated, InProcess: true}, nil
}

// capWriter is the ResponseWriter of an in-process call: it keeps the
// status, the headers and the first respCap bytes of the body.
type capWriter struct {
	header    http.Header
	status    int
	body      []byte
	respCap   int
	truncated bool
}

func (w *capWriter) Header() http.Header { return w.header }

func (w *capWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *capWriter) Write(b []byte) (int, error) {
	n := len(b)
	w.WriteHeader(http.StatusOK)
	room := w.respCap - len(w.body)
	if len(b) > room {
		w.truncated = true
		b = b[:max(room, 0)]
	}
	w.body = append(w.body, b...)
	return n, nil // the guest's writes all "succeed": the caller sees a truncated body
}
