// Package testhttp sends the HTTP requests of the tests and reads their
// answers whole, failing the test, with the request named, when no answer
// comes.
package testhttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// Reply is an answer with its body read.
type Reply struct {
	Status int
	Header http.Header
	Body   string
}

func (r Reply) String() string { return fmt.Sprintf("%d %q", r.Status, r.Body) }

// Do sends method url with body and the header lines ("Name: value"; a Host
// line sets the request's host) and returns the answer. The client asks for
// exactly what the test says: no transparent gzip.
func Do(t testing.TB, method, url, body string, headers ...string) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok {
			t.Fatalf("header line %q has no colon", h)
		}
		if value = strings.TrimSpace(value); http.CanonicalHeaderKey(name) == "Host" {
			req.Host = value
		} else {
			req.Header.Set(name, value)
		}
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return read(t, method+" "+url, resp)
}

// Get is Do with GET and no body.
func Get(t testing.TB, url string, headers ...string) Reply {
	t.Helper()
	return Do(t, http.MethodGet, url, "", headers...)
}

// Post is Do with POST.
func Post(t testing.TB, url, body string, headers ...string) Reply {
	t.Helper()
	return Do(t, http.MethodPost, url, body, headers...)
}

// Raw sends GET target to addr (host:port) with Host host, the request target
// exactly as written: no client-side cleaning or escaping.
func Raw(t testing.TB, addr, host, target string) Reply {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return read(t, "GET "+target, resp)
}

func read(t testing.TB, what string, resp *http.Response) Reply {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading the body: %v", what, err)
	}
	return Reply{resp.StatusCode, resp.Header, string(b)}
}
