package pod

import (
	"errors"
	"net/http"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/tetratelabs/wazero/api"
)

// k32RespStatus: (status u32) -> i32.
var k32RespStatus = duringHandle(func(_ *Pod, s *callState, _ api.Module, a []uint64) int64 {
	status := u32(a, 0)
	if s.headSent || status < 100 || status > 599 {
		return int64(abi.ErrInval)
	}
	s.status = int(status)
	return 0
})

// k32RespHeader: (name ptr, name_len u32, value ptr, value_len u32) -> i32.
// Queues the header until the head is sent, at most abi.RespHeadersMax
// headers of abi.RespHeaderBytesMax in all, checked before anything is
// copied out of guest memory.
var k32RespHeader = duringHandle(func(_ *Pod, s *callState, mod api.Module, a []uint64) int64 {
	size := int(u32(a, 1)) + int(u32(a, 3)) + len(": \r\n")
	if s.headers >= abi.RespHeadersMax || size > abi.RespHeaderBytesMax-s.headerBytes {
		return int64(abi.ErrTooBig)
	}
	nameBytes, nameOK := argBytes(mod, a, 0)
	valueBytes, valueOK := argBytes(mod, a, 2)
	if !nameOK || !valueOK {
		return int64(abi.ErrFault)
	}
	// One string for both: a header costs one allocation.
	both := string(nameBytes) + string(valueBytes)
	name, value := both[:len(nameBytes)], both[len(nameBytes):]
	if s.headSent || !validHeaderName(name) || strings.ContainsAny(value, "\r\n\x00") {
		return int64(abi.ErrInval)
	}
	if strings.EqualFold(name, "Set-Cookie") && abi.SetsReservedCookie(value) {
		return int64(abi.ErrInval) // the web view's session cookie (docs/ui.md)
	}
	s.queueHeader(name, value)
	s.headers, s.headerBytes = s.headers+1, s.headerBytes+size
	return 0
})

// k32RespWrite: (data ptr, len u32) -> i32. Sends the head on first use, then
// the bytes straight from guest memory.
var k32RespWrite = duringHandle(func(p *Pod, s *callState, mod api.Module, a []uint64) int64 {
	data, ok := argBytes(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	if hc := p.hostCosts(); hc != nil {
		p.charge(hc.RespWrite.Of(len(data)))
	}
	p.onBoardClock()
	s.sendHead(0)
	if len(data) == 0 {
		return 0
	}
	if _, err := s.w.Write(data); err != nil {
		if errors.Is(err, http.ErrBodyNotAllowed) {
			return int64(abi.ErrInval) // a 204 or 304 has no body
		}
		return int64(abi.ErrIO)
	}
	return int64(len(data))
})

// validHeaderName reports whether name is an RFC 9110 token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validHeaderByte(name[i]) {
			return false
		}
	}
	return true
}

// validHeaderByte reports whether c may be part of an RFC 9110 token.
func validHeaderByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
