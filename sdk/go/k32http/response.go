package k32http

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
)

// DefaultResponseHeader lists the response header fields every Response
// of Transport holds when the host has them.
var DefaultResponseHeader = []string{
	"Content-Type", "Content-Length", "Content-Encoding", "Location", "Set-Cookie",
	"Cache-Control", "Etag", "Last-Modified", "Date", "Retry-After", "Www-Authenticate",
}

// responseHeader fetches the fields of DefaultResponseHeader and extra
// with get, which returns "" for a field the response lacks.
func responseHeader(get func(name string) string, extra []string) http.Header {
	h := make(http.Header)
	for _, names := range [][]string{DefaultResponseHeader, extra} {
		for _, name := range names {
			key := http.CanonicalHeaderKey(name)
			if _, done := h[key]; done {
				continue
			}
			if v := get(key); v != "" {
				h[key] = []string{v}
			}
		}
	}
	return h
}

// newResponse builds the *http.Response for req from a call's status,
// body and header. The body is all there, so ContentLength is its size
// (for HEAD, the size the header announces).
func newResponse(req *http.Request, status int, body []byte, header http.Header) *http.Response {
	length := int64(len(body))
	if req.Method == http.MethodHead {
		length = -1
		if n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			length = n
		}
	}
	var rc io.ReadCloser = http.NoBody
	if len(body) > 0 {
		rc = io.NopCloser(bytes.NewReader(body))
	}
	text := http.StatusText(status)
	if text == "" {
		text = "status code " + strconv.Itoa(status)
	}
	return &http.Response{
		Status:        strconv.Itoa(status) + " " + text,
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          rc,
		ContentLength: length,
		Request:       req,
	}
}
