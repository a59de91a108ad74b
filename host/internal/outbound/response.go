package outbound

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// errMalformed is an answer that is not HTTP/1.x; the pod gets K32_ERR_IO,
// as for any failed connection.
var errMalformed = abi.ErrIO

// readResponse reads the answer to a request with method from r: interim
// 1xx answers skipped, each head at most headLimit bytes, and at most
// respCap bytes of body (Truncated when it had more; reading stops there).
func readResponse(r *bufio.Reader, headLimit int, method string, respCap int) (pod.CallResult, error) {
	status, header, body, length, err := readResponseHead(r, headLimit, method)
	if err != nil {
		return pod.CallResult{}, err
	}
	res := pod.CallResult{Status: status, Header: header}
	res.Body, res.Truncated, err = ReadBody(body, length, respCap)
	if err != nil {
		return pod.CallResult{}, err
	}
	return res, nil
}

// readResponseHead reads the final head of the answer to a request with
// method from r (interim 1xx answers skipped, each head at most headLimit
// bytes) and returns its body unframed: length bytes (≥ 0) or, with length
// -1, until it ends. An answer without a body has an empty one.
func readResponseHead(r *bufio.Reader, headLimit int, method string) (int, http.Header, io.Reader, int64, error) {
	for {
		status, header, err := readHead(r, headLimit)
		if err != nil {
			return 0, nil, nil, 0, err
		}
		switch {
		case status == http.StatusSwitchingProtocols:
			return 0, nil, nil, 0, errMalformed // never asked for: the connection is no longer HTTP
		case status < 200:
			continue // interim answer (100 Continue, 103 Early Hints, …)
		}
		if method == "HEAD" || status == http.StatusNoContent || status == http.StatusNotModified {
			return status, header, strings.NewReader(""), 0, nil
		}
		body, length, err := bodyReader(r, header)
		if err != nil {
			return 0, nil, nil, 0, err
		}
		return status, header, body, length, nil
	}
}

// readHead reads one response head, status line through the blank line,
// failing with K32_ERR_IO as soon as it passes limit bytes (line ends
// included).
func readHead(r *bufio.Reader, limit int) (int, http.Header, error) {
	var lines []string
	var line []byte
	size := 0
	for {
		frag, err := r.ReadSlice('\n')
		size += len(frag)
		if size > limit {
			return 0, nil, abi.ErrIO // head too large
		}
		line = append(line, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue // a line longer than the buffer: keep counting
		case err == io.EOF:
			return 0, nil, errMalformed // closed before the head ended
		case err != nil:
			return 0, nil, err
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
		line = line[:0]
		if text == "" {
			break
		}
		lines = append(lines, text)
	}
	if len(lines) == 0 {
		return 0, nil, errMalformed
	}
	status, ok := parseStatusLine(lines[0])
	if !ok {
		return 0, nil, errMalformed
	}
	header := make(http.Header, len(lines)-1)
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok || !validToken(name) {
			return 0, nil, errMalformed // also obsolete line folding, which starts with white space
		}
		header.Add(name, strings.Trim(value, " \t"))
	}
	return status, header, nil
}

// parseStatusLine reads "HTTP/1.x NNN [reason]".
func parseStatusLine(line string) (int, bool) {
	if len(line) < len("HTTP/1.x NNN") || !strings.HasPrefix(line, "HTTP/1.") || line[8] != ' ' {
		return 0, false
	}
	code := line[9:12]
	if len(line) > 12 && line[12] != ' ' {
		return 0, false
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 100 || n > 599 {
		return 0, false
	}
	return n, true
}

// bodyReader returns how the body is framed: chunked, Content-Length
// bytes (length ≥ 0), or everything until the host closes (length -1).
func bodyReader(r *bufio.Reader, header http.Header) (io.Reader, int64, error) {
	if te := header.Values("Transfer-Encoding"); len(te) > 0 {
		codings := strings.Split(te[len(te)-1], ",")
		if strings.EqualFold(strings.TrimSpace(codings[len(codings)-1]), "chunked") {
			return httputil.NewChunkedReader(r), -1, nil
		}
		return r, -1, nil // another final coding: the body ends when the host closes
	}
	cls := header.Values("Content-Length")
	if len(cls) == 0 {
		return r, -1, nil
	}
	length := int64(-1)
	for _, v := range cls {
		for _, part := range strings.Split(v, ",") {
			n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 64)
			if err != nil || n < 0 || length >= 0 && n != length {
				return nil, 0, errMalformed // an answer that could smuggle another one
			}
			length = n
		}
	}
	return r, length, nil
}

// ReadBody copies at most respCap bytes of body. With a known length it
// knows at once whether the body fits; otherwise it reads one byte more
// than respCap to learn that the body exceeds it, and stops there.
func ReadBody(body io.Reader, length int64, respCap int) ([]byte, bool, error) {
	if length >= 0 {
		buf := make([]byte, min(length, int64(respCap)))
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, false, err // ended early, bad chunk or timeout: ioErrno sorts it out
		}
		return buf, length > int64(respCap), nil
	}
	buf, err := io.ReadAll(io.LimitReader(body, int64(respCap)+1))
	if err != nil {
		return nil, false, err // ended early, bad chunk or timeout: ioErrno sorts it out
	}
	if len(buf) > respCap {
		return buf[:respCap], true, nil
	}
	return buf, false, nil
}
