package httplimit

import "net/netip"

// Client is what every per-client budget of the node counts a request or
// connection from remoteAddr ("host:port") as: its IPv4 address, or the /64
// of its IPv6 address, which one host commonly holds whole and could
// otherwise spread its requests over.
func Client(remoteAddr string) string {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return remoteAddr
	}
	a := ap.Addr().Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
