package apptest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"golang.org/x/text/encoding/htmlindex"
)

// answer is what came back for an entry's request.
type answer struct {
	status   int
	proto    string // the status line's text, for messages: 200 OK
	version  string // 1.0, 1.1, 2
	header   http.Header
	raw      []byte // the body as it came
	url      string // the last URL requested (after redirects)
	ip       string // the server's address
	duration time.Duration
	// redirects are the redirects followed ([Options] location), each
	// {"location": URL, "status": code} as Hurl's redirects query lists them.
	redirects []any

	decoded []byte // raw, its Content-Encoding undone
	decErr  error
	done    bool
}

// bytes is the body, its Content-Encoding undone (gzip, deflate, br), as
// Hurl's body and bytes queries read it.
func (a *answer) bytes() ([]byte, error) {
	if !a.done {
		a.done = true
		a.decoded, a.decErr = decompress(a.raw, a.header.Values("Content-Encoding"))
	}
	return a.decoded, a.decErr
}

// text is the body as text, in the charset of its Content-Type (UTF-8
// when it names none).
func (a *answer) text() (string, error) {
	b, err := a.bytes()
	if err != nil {
		return "", err
	}
	charset := ""
	if _, params, err := mime.ParseMediaType(a.header.Get("Content-Type")); err == nil {
		charset = params["charset"]
	}
	if charset == "" {
		if !utf8.Valid(b) {
			return "", fmt.Errorf("the body is not UTF-8 and its Content-Type names no charset: use bytes, or the decode filter")
		}
		return string(b), nil
	}
	return decodeCharset(b, charset)
}

// decodeCharset decodes text in a charset (an encoding's WHATWG name:
// utf-8, iso-8859-1, gb2312, …).
func decodeCharset(b []byte, charset string) (string, error) {
	if strings.EqualFold(charset, "utf-8") || strings.EqualFold(charset, "utf8") {
		if !utf8.Valid(b) {
			return "", fmt.Errorf("not UTF-8")
		}
		return string(b), nil
	}
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return "", fmt.Errorf("unknown charset %q", charset)
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return "", fmt.Errorf("not %s: %v", charset, err)
	}
	return string(out), nil
}

// decompress undoes Content-Encodings, the last applied first.
func decompress(b []byte, encodings []string) ([]byte, error) {
	var list []string
	for _, v := range encodings {
		for _, e := range strings.Split(v, ",") {
			if e = strings.ToLower(strings.TrimSpace(e)); e != "" && e != "identity" {
				list = append(list, e)
			}
		}
	}
	for i := len(list) - 1; i >= 0; i-- {
		var r io.Reader
		var err error
		switch list[i] {
		case "gzip", "x-gzip":
			r, err = gzip.NewReader(bytes.NewReader(b))
		case "deflate":
			// zlib-wrapped, as HTTP says; raw deflate as some servers send.
			if r, err = zlib.NewReader(bytes.NewReader(b)); err != nil {
				r, err = flate.NewReader(bytes.NewReader(b)), nil
			}
		case "br":
			r = brotli.NewReader(bytes.NewReader(b))
		default:
			return nil, fmt.Errorf("unknown Content-Encoding %q", list[i])
		}
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %v", list[i], err)
		}
		out, err := io.ReadAll(io.LimitReader(r, maxBody+1))
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding %s: %v", list[i], err)
		}
		if len(out) > maxBody {
			return nil, fmt.Errorf("Content-Encoding %s: the body decompresses to more than %d bytes", list[i], maxBody)
		}
		b = out
	}
	return b, nil
}
