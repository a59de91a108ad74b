package pod

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// requestGetter answers one getter of the request in the current k32_handle.
func requestGetter(value func(r *http.Request) string) hostImpl {
	return duringHandle(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
		return int64(copyOut(mod, u32(a, 0), u32(a, 1), value(s.req)))
	})
}

// k32ReqMethod: (out ptr, cap u32) -> i32.
var k32ReqMethod = requestGetter(func(r *http.Request) string { return r.Method })

// k32ReqPath: (out ptr, cap u32) -> i32. The path in its escaped form, without the query.
var k32ReqPath = requestGetter(func(r *http.Request) string {
	if p := r.URL.EscapedPath(); p != "" {
		return p
	}
	return "/"
})

// k32ReqQuery: (out ptr, cap u32) -> i32. The raw query without '?'.
var k32ReqQuery = requestGetter(func(r *http.Request) string { return r.URL.RawQuery })

// k32ReqHeaders: (out ptr, cap u32) -> i32. "Name: value\r\n" lines, Host
// first (Go keeps it outside r.Header), then the others sorted by name. The
// lines are built in the pod's scratch buffers, which the callback lock
// guards, so that a request costs no allocation here.
var k32ReqHeaders = duringHandle(func(p *Pod, s *callState, mod api.Module, a []uint64) int64 {
	r := s.req
	b := p.scratch[:0]
	if r.Host != "" {
		b = append(append(append(b, "Host: "...), r.Host...), "\r\n"...)
	}
	names := p.scratchNames[:0]
	for name := range r.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range r.Header[name] {
			b = append(append(append(append(b, name...), ": "...), v...), "\r\n"...)
		}
	}
	n := copyOut(mod, u32(a, 0), u32(a, 1), b)
	clear(names)
	if cap(b) <= maxScratch {
		p.scratch, p.scratchNames = b, names[:0]
	}
	return int64(n)
})

// maxScratch is the largest scratch buffer a pod keeps between callbacks:
// a request with an unusually large head does not pin its size for good.
const maxScratch = 16 << 10

// k32ReqHeader: (name ptr, name_len u32, out ptr, cap u32) -> i32.
var k32ReqHeader = duringHandle(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	name, ok := argString(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	value, found := requestHeader(s.req, name)
	if !found {
		return int64(abi.ErrNoEnt)
	}
	return int64(copyOut(mod, u32(a, 2), u32(a, 3), value))
})

// requestHeader finds a header case-insensitively, repeated values joined with ", ".
func requestHeader(r *http.Request, name string) (string, bool) {
	if strings.EqualFold(name, "Host") {
		return r.Host, r.Host != ""
	}
	values := r.Header.Values(name)
	if len(values) == 0 {
		return "", false
	}
	return strings.Join(values, ", "), true
}

// k32ReqRead: (out ptr, cap u32) -> i32. Reads the body straight into guest
// memory; 0 at the end.
var k32ReqRead = duringHandle(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	out, ok := argBytes(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	if len(out) == 0 || s.bodyEOF || s.req.Body == nil {
		return 0
	}
	for {
		n, err := s.req.Body.Read(out)
		if n > 0 {
			return int64(n)
		}
		if errors.Is(err, io.EOF) {
			s.bodyEOF = true
			return 0
		}
		if err != nil {
			return int64(abi.ErrIO)
		}
	}
})
