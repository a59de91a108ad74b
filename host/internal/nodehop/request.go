package nodehop

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/kube32/kube32/abi"
)

// Request is one request to a pod on another node.
type Request struct {
	Method string
	Target string // the request-target: the path and query, "/p?q=1"
	Host   string // the Host header; empty means the node's address, as net/http sends
	Pod    string // the pod, "<namespace>/<name>", sent as abi.HeaderPod
	// Header is sent without its hop-by-hop fields (IsHopByHop), the
	// fields its Connection names and the fields Set names.
	Header http.Header
	// Set are fields sent in place of Header's fields of the same names; a
	// Field with an empty Value only removes them.
	Set []Field
	// Body, ContentLength bytes of it, is sent after the head, in the
	// same write: a body in memory.
	Body          io.Reader
	ContentLength int64
	// Interim, when set, is given each informational (1xx) answer before
	// the final one.
	Interim func(code int, header http.Header)
}

// Field is one header field.
type Field struct{ Name, Value string }

// ErrInvalid is the error of a request that cannot be written: a method,
// target, Host or header field that is not valid HTTP, or a body shorter
// than its ContentLength.
var ErrInvalid = errors.New("invalid request")

// IsHopByHop reports whether the field name (canonical) belongs to one
// connection and is not forwarded, as net/http/httputil.ReverseProxy
// removes them (RFC 9110, 7.6.1).
func IsHopByHop(name string) bool {
	switch name {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
		"Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// namedByConnection reports whether the Connection field values name the
// field name.
func namedByConnection(connection []string, name string) bool {
	for _, v := range connection {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(textproto.TrimString(f), name) {
				return true
			}
		}
	}
	return false
}

// RemoveHopByHop removes the hop-by-hop fields of h and those its
// Connection names.
func RemoveHopByHop(h http.Header) {
	connection := h["Connection"]
	for k := range h {
		if IsHopByHop(k) || namedByConnection(connection, k) {
			delete(h, k)
		}
	}
}

// appendRequest appends the request's head and body to b, as net/http's
// client writes them to addr: a Content-Length for a body, and for an
// empty one unless the method is GET or HEAD.
func appendRequest(b []byte, r *Request, addr string) ([]byte, error) {
	host := r.Host
	if host == "" {
		host = addr
	}
	if !validToken(r.Method) || !validTarget(r.Target) || !httpguts.ValidHostHeader(host) || r.Pod == "" {
		return b, fmt.Errorf("%w: %q %q (Host %q)", ErrInvalid, r.Method, r.Target, host)
	}
	b = append(append(append(append(b, r.Method...), ' '), r.Target...), " HTTP/1.1\r\nHost: "...)
	b = append(append(b, host...), "\r\n"...)
	connection := r.Header["Connection"]
	for k, vv := range r.Header {
		if k == "Host" || k == "Content-Length" || k == abi.HeaderPod || IsHopByHop(k) || r.sets(k) ||
			(connection != nil && namedByConnection(connection, k)) {
			continue
		}
		for _, v := range vv {
			var err error
			if b, err = appendField(b, k, v); err != nil {
				return b, err
			}
		}
	}
	for _, f := range r.Set {
		if f.Value == "" {
			continue
		}
		var err error
		if b, err = appendField(b, f.Name, f.Value); err != nil {
			return b, err
		}
	}
	b = append(append(append(b, abi.HeaderPod...), ": "...), r.Pod...)
	b = append(b, "\r\n"...)
	if r.ContentLength > 0 || r.Method != http.MethodGet && r.Method != http.MethodHead {
		b = strconv.AppendInt(append(b, "Content-Length: "...), r.ContentLength, 10)
		b = append(b, "\r\n"...)
	}
	b = append(b, "\r\n"...)
	if r.ContentLength <= 0 {
		return b, nil
	}
	head := len(b)
	b = append(b, make([]byte, r.ContentLength)...)
	if r.Body == nil {
		return b, fmt.Errorf("%w: no body of %d bytes", ErrInvalid, r.ContentLength)
	}
	if _, err := io.ReadFull(r.Body, b[head:]); err != nil {
		return b, fmt.Errorf("%w: body of %d bytes: %v", ErrInvalid, r.ContentLength, err)
	}
	return b, nil
}

// sets reports whether r.Set names the field name.
func (r *Request) sets(name string) bool {
	for _, f := range r.Set {
		if f.Name == name {
			return true
		}
	}
	return false
}

// appendField appends "name: value\r\n", the value trimmed as net/http
// writes it; a name or value that is not valid HTTP fails.
func appendField(b []byte, name, value string) ([]byte, error) {
	if !httpguts.ValidHeaderFieldName(name) || !httpguts.ValidHeaderFieldValue(value) {
		return b, fmt.Errorf("%w: header field %q", ErrInvalid, name)
	}
	b = append(append(append(b, name...), ": "...), textproto.TrimString(value)...)
	return append(b, "\r\n"...), nil
}

// validToken reports whether s is an RFC 9110 token (a method).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !httpguts.IsTokenRune(rune(s[i])) {
			return false
		}
	}
	return true
}

// validTarget reports whether s can be a request-target: not empty, no
// space or control byte.
func validTarget(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}
