package pod

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// k32HTTPCall: (method, method_len, url, url_len, headers, headers_len, body,
// body_len, resp, resp_cap, resp_len, timeout_ms) -> i32. The SERVICE_CALL
// gate ran before this; without a Config.Caller the node does not support
// calls yet.
func k32HTTPCall(p *Pod, ctx context.Context, mod api.Module, a []uint64) int64 {
	if p.cfg.Caller == nil {
		return int64(abi.ErrNotSup)
	}
	head := uint64(u32(a, 1)) + uint64(u32(a, 3)) + uint64(u32(a, 5))
	// Before copying them out. The body is not bounded here: it is at most
	// the pod's own memory, which the node granted, and a host outside may
	// take a larger one than a pod's port does.
	if head > abi.CallHeadBytesMax {
		return int64(abi.ErrTooBig)
	}
	method, ok1 := argString(mod, a, 0)
	url, ok2 := argString(mod, a, 2)
	rawHeaders, ok3 := argString(mod, a, 4)
	body, ok4 := argBytes(mod, a, 6)
	resp, ok5 := argBytes(mod, a, 8)
	respLenPtr := u32(a, 10)
	ok6 := true
	if respLenPtr != 0 { // NULL: the guest does not want the count
		_, ok6 = read(mod, respLenPtr, 4)
	}
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return int64(abi.ErrFault)
	}
	header, ok := parseHeaderLines(rawHeaders)
	if !ok || method == "" || url == "" {
		return int64(abi.ErrInval)
	}
	timeout := time.Duration(u32(a, 11)) * time.Millisecond
	if timeout == 0 {
		timeout = abi.CallTimeoutDefault
	}
	timeout = min(timeout, abi.CallTimeoutMax)
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	p.lastCall = nil
	p.cpu.wait()
	began := time.Now()
	res, err := p.cfg.Caller.HTTPCall(callCtx, Call{
		From: p.id, Method: method, URL: url, Header: header, Body: bytes.Clone(body),
		RespCap: len(resp), Timeout: timeout, Chain: p.callChain(ctx), Inbound: inbound(ctx),
	})
	p.waitedSince(began)
	p.cpu.resume()
	p.chargeCall(url, len(body), res, err)
	if err != nil {
		return int64(callErrno(ctx, callCtx, err))
	}
	n := copy(resp, res.Body)
	if respLenPtr != 0 {
		mod.Memory().WriteUint32Le(respLenPtr, uint32(n))
	}
	truncated := res.Truncated || len(res.Body) > len(resp)
	res.Body = nil // copied out; the pod keeps only the status and headers
	p.lastCall = &res
	if truncated {
		return int64(abi.ErrTooBig)
	}
	return int64(res.Status)
}

// callChain is the chain a call of this callback carries: the chain of the
// request being handled, then this pod.
func (p *Pod) callChain(ctx context.Context) []string {
	var chain []string
	if st := handleState(ctx); st != nil {
		chain = parseCallChain(st.req.Header.Values(abi.HeaderCallChain)...)
	}
	return append(chain, p.id)
}

// inbound is the context of the request a k32_handle callback handles,
// nil in other callbacks.
func inbound(ctx context.Context) context.Context {
	if st := handleState(ctx); st != nil {
		return st.req.Context()
	}
	return nil
}

// callErrno maps a Caller or Publisher error to the code the guest gets.
func callErrno(ctx, callCtx context.Context, err error) abi.Errno {
	var code abi.Errno
	switch {
	case errors.As(err, &code):
		return code
	case ctx.Err() != nil: // the pod is stopping or the callback ran out of time
		return abi.ErrIntr
	case callCtx.Err() != nil || errors.Is(err, context.DeadlineExceeded):
		return abi.ErrTimeout
	}
	return abi.ErrIO
}

// parseHeaderLines reads optional "Name: value\r\n" lines (or "\n" ones),
// one at a time: no copy of the whole.
func parseHeaderLines(raw string) (http.Header, bool) {
	h := http.Header{}
	for raw != "" {
		line, rest, ended := strings.Cut(raw, "\n")
		raw = rest
		if ended { // a "\r" ends a line only before its "\n"
			line = strings.TrimSuffix(line, "\r")
		}
		if line == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !validHeaderName(name) || strings.ContainsAny(value, "\r\x00") {
			return nil, false
		}
		h.Add(name, strings.TrimSpace(value))
	}
	return h, true
}

// k32HTTPStatus: () -> i32. The status of the last call, also after K32_ERR_TOOBIG.
func k32HTTPStatus(p *Pod, _ context.Context, _ api.Module, _ []uint64) int64 {
	if p.lastCall == nil {
		return int64(abi.ErrNoEnt)
	}
	return int64(p.lastCall.Status)
}

// k32HTTPHeader: (name ptr, name_len u32, out ptr, cap u32) -> i32. A header
// of the last call's response.
func k32HTTPHeader(p *Pod, _ context.Context, mod api.Module, a []uint64) int64 {
	name, ok := argString(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	if p.lastCall == nil {
		return int64(abi.ErrNoEnt)
	}
	values := p.lastCall.Header.Values(name)
	if len(values) == 0 {
		return int64(abi.ErrNoEnt)
	}
	return int64(copyOut(mod, u32(a, 2), u32(a, 3), strings.Join(values, ", ")))
}

// k32Publish: (topic ptr, topic_len u32, data ptr, data_len u32) -> i32. The
// CHANNEL_IPC gate ran before this; without a Config.Publisher the node does
// not support channels yet.
func k32Publish(p *Pod, ctx context.Context, mod api.Module, a []uint64) int64 {
	if p.cfg.Publisher == nil {
		return int64(abi.ErrNotSup)
	}
	// The Publisher refuses these too; checked here before copying them.
	if u32(a, 1) > abi.ChannelTopicMax {
		return int64(abi.ErrInval)
	}
	if u32(a, 3) > abi.ChannelMessageMax {
		return int64(abi.ErrTooBig)
	}
	topic, ok1 := argString(mod, a, 0)
	data, ok2 := argBytes(mod, a, 2)
	if !ok1 || !ok2 {
		return int64(abi.ErrFault)
	}
	if topic == "" {
		return int64(abi.ErrInval)
	}
	if hc := p.hostCosts(); hc != nil {
		p.charge(hc.Publish.Of(len(data)))
	}
	if err := p.cfg.Publisher.Publish(ctx, p.id, topic, bytes.Clone(data)); err != nil {
		return int64(callErrno(ctx, ctx, err))
	}
	return 0
}
