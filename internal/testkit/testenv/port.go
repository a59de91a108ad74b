package testenv

import (
	"net"
	"testing"
)

// FreePort returns a TCP port free on ip (a loopback address) right now.
func FreePort(t testing.TB, ip string) int {
	t.Helper()
	l, err := net.Listen("tcp4", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
