package outbound

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// outsideHeader returns the caller headers a host outside the cluster
// receives: all but the abi.HeaderPrefix ones and abi.ConnectionHeaders.
func outsideHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if slices.Contains(abi.ConnectionHeaders, ck) || strings.HasPrefix(ck, abi.HeaderPrefix) {
			continue
		}
		out[ck] = append(out[ck], v...)
	}
	return out
}

// serviceHeader returns the caller headers a target pod behind a Service
// receives: only abi.ServiceCallHeaders.
func ServiceHeader(h http.Header) http.Header {
	out := make(http.Header, len(abi.ServiceCallHeaders))
	for _, k := range abi.ServiceCallHeaders {
		if v := h.Values(k); len(v) > 0 {
			out[k] = append([]string(nil), v...)
		}
	}
	return out
}

// buildRequest writes the request line and head of call to t: the Host
// header from the URL, the caller's headers as OutsideHeader filters them
// (sorted, so a request is the same bytes every time), Content-Length for a
// body (and for an empty one where a body is expected), Connection: close.
// A method or header that cannot travel fails with K32_ERR_INVAL.
func buildRequest(t Target, call pod.Call) ([]byte, error) {
	inval := abi.ErrInval
	if !validToken(call.Method) {
		return nil, inval
	}
	var b strings.Builder
	b.WriteString(call.Method + " " + t.RequestURI + " HTTP/1.1\r\nHost: " + t.HostHeader + "\r\n")
	h := outsideHeader(call.Header)
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !validToken(k) {
			return nil, inval
		}
		for _, v := range h[k] {
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, inval
			}
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	if len(call.Body) > 0 || bodyExpected(call.Method) {
		b.WriteString("Content-Length: " + strconv.Itoa(len(call.Body)) + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return []byte(b.String()), nil
}

// bodyExpected reports whether a request with method carries a body even
// when it is empty, so servers want its Content-Length: 0.
func bodyExpected(method string) bool {
	return method == "POST" || method == "PUT" || method == "PATCH"
}

// validToken reports whether s is an RFC 9110 token (a method or a header
// name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}
