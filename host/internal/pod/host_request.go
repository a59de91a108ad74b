package pod

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"slices"

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
// lines are written straight into guest memory, as much as fits, and the
// names sorted in the pod's scratch slice, which the callback lock guards,
// so that a request costs no allocation and no copy here.
var k32ReqHeaders = duringHandle(func(p *Pod, s *callState, mod api.Module, a []uint64) int64 {
	dst, ok := read(mod, u32(a, 0), u32(a, 1))
	if !ok {
		return int64(abi.ErrFault)
	}
	r := s.req
	out := guestOut{dst: dst}
	if r.Host != "" {
		out.line("Host", r.Host)
	}
	names := p.scratchNames[:0]
	for name := range r.Header {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, v := range r.Header[name] {
			out.line(name, v)
		}
	}
	clear(names)
	if cap(names) <= maxScratchNames {
		p.scratchNames = names[:0]
	}
	return int64(out.result())
})

// maxScratchNames is the most header names the pod's scratch slice keeps
// between callbacks: a request with unusually many headers does not pin
// its size for good.
const maxScratchNames = 256

// guestOut writes a getter's value into guest memory piece by piece: what
// fits in dst is copied, the rest only counted, so that the result is the
// full length as copyOut's.
type guestOut struct {
	dst []byte
	n   int
}

func (g *guestOut) add(s string) {
	if g.n < len(g.dst) {
		copy(g.dst[g.n:], s)
	}
	g.n += len(s)
}

// line adds one "Name: value\r\n" line.
func (g *guestOut) line(name, value string) {
	g.add(name)
	g.add(": ")
	g.add(value)
	g.add("\r\n")
}

func (g *guestOut) result() int32 { return int32(min(g.n, 0x7fffffff)) }

// k32ReqHeader: (name ptr, name_len u32, out ptr, cap u32) -> i32. Repeated
// values are written joined with ", " straight into guest memory.
var k32ReqHeader = duringHandle(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	name, ok := argBytes(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	if bytes.EqualFold(name, []byte("Host")) { // Go keeps it outside r.Header
		if s.req.Host == "" {
			return int64(abi.ErrNoEnt)
		}
		return int64(copyOut(mod, u32(a, 2), u32(a, 3), s.req.Host))
	}
	// Case-insensitive, as http.Header.Values, without copying the name
	// out of guest memory into a string.
	var buf [64]byte
	values := s.req.Header[string(headerKey(buf[:0], name))]
	if len(values) == 0 {
		return int64(abi.ErrNoEnt)
	}
	dst, ok := read(mod, u32(a, 2), u32(a, 3))
	if !ok {
		return int64(abi.ErrFault)
	}
	out := guestOut{dst: dst}
	for i, v := range values {
		if i > 0 {
			out.add(", ")
		}
		out.add(v)
	}
	return int64(out.result())
})

// headerKey appends name in the canonical form of http.Header's keys
// (textproto.CanonicalMIMEHeaderKey) to buf: the first letter and each one
// after a '-' upper case, the others lower case; a name that is not a
// token is kept as it is.
func headerKey(buf, name []byte) []byte {
	for _, c := range name {
		if !validHeaderByte(c) {
			return append(buf, name...)
		}
	}
	upper := true
	for _, c := range name {
		if upper && 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		} else if !upper && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
		upper = c == '-'
	}
	return buf
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
