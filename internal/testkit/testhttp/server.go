package testhttp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Server is an httptest server of h listening on ip (a loopback address) on
// a free port, not started yet, so that the test may set it up; it is
// closed when the test ends.
func Server(t testing.TB, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	l, err := net.Listen("tcp4", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = l
	t.Cleanup(s.Close)
	return s
}

// Serve is Server, started.
func Serve(t testing.TB, ip string, h http.Handler) *httptest.Server {
	t.Helper()
	s := Server(t, ip, h)
	s.Start()
	return s
}

// Start serves h on a loopback httptest server, over TLS when tls, until
// the test ends.
func Start(t testing.TB, h http.Handler, tls bool) *httptest.Server {
	t.Helper()
	var s *httptest.Server
	if tls {
		s = httptest.NewTLSServer(h)
	} else {
		s = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}
