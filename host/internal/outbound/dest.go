package outbound

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
)

// The one place that decides which address a call to a host outside the
// cluster reaches (docs/networkpolicy.md, "Which address a policy sees").
// Every way out uses it: Outside and TLS for the control plane's pods and
// the egress gateway, the worker's Outside before its CONNECT relay, and
// the relay itself. NetworkPolicy is checked against that address, and
// the node then dials exactly it: a name is looked up once, never again
// by the dialer.

// loopbackIP is where a connection to 0.0.0.0 goes.
var loopbackIP = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// destAddr returns the address a connection to a really reaches: the
// IPv4 address of an IPv4-mapped IPv6 one, and 127.0.0.1 for 0.0.0.0,
// which the operating system connects to the local host. Any other IPv6
// address fails with K32_ERR_INVAL: nodes are IPv4 only.
func destAddr(a netip.Addr) (netip.Addr, error) {
	a = a.Unmap()
	switch {
	case !a.Is4():
		return netip.Addr{}, abi.ErrInval
	case a.IsUnspecified():
		return loopbackIP, nil
	}
	return a, nil
}

// hostAddr reads the host of a URL (lower case) as an address: ok is set
// when host spells one, and addr is then what destAddr makes of it. A host
// whose labels are all numbers is an IPv4 address in any spelling the C
// library's inet_aton and the boards' lwIP accept — decimal, octal
// (0177), hex (0x7f), and fewer than four parts (127.1, 2130706433) — or
// a malformed one (K32_ERR_INVAL); it is never looked up as a name, which
// Go's own resolver would do while the C library would not. An IPv6
// literal fails with K32_ERR_INVAL (unless IPv4-mapped).
func hostAddr(host string) (addr netip.Addr, ok bool, err error) {
	if a, perr := netip.ParseAddr(host); perr == nil {
		addr, err = destAddr(a)
		return addr, true, err
	}
	if !numericHost(host) {
		return netip.Addr{}, false, nil
	}
	a, perr := parseIPv4(strings.TrimSuffix(host, "."))
	if perr != nil {
		return netip.Addr{}, true, abi.ErrInval
	}
	addr, err = destAddr(a)
	return addr, true, err
}

// numericHost reports whether every label of host (an optional final dot
// aside) is a number: digits, or 0x and hex digits.
func numericHost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		digits, hex := label, false
		if strings.HasPrefix(label, "0x") {
			digits, hex = label[2:], true
		} else if label == "" {
			return false
		}
		for i := 0; i < len(digits); i++ {
			c := digits[i]
			if !(c >= '0' && c <= '9' || hex && c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// parseIPv4 reads an IPv4 address as inet_aton does: one to four parts,
// each decimal, octal (leading 0) or hex (0x); the last part fills the
// bytes the others leave (127.1 is 127.0.0.1, 2130706433 too).
func parseIPv4(s string) (netip.Addr, error) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, errors.New("more than four parts")
	}
	var v uint64
	for i, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
			if p == "" {
				p = "0" // "0x" alone is 0, as inet_aton reads it
			}
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		n, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return netip.Addr{}, err
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, errors.New("part over 255")
			}
			v = v<<8 | n
			continue
		}
		rest := uint(8 * (4 - len(parts) + 1)) // the bits the last part fills
		if rest < 32 && n >= 1<<rest {
			return netip.Addr{}, errors.New("last part too large")
		}
		v = v<<rest | n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// localhostName reports whether host is "localhost" or a name under it,
// which always mean the local host (RFC 6761, section 6.3): they are not
// asked of a name server, which could answer anything.
func localhostName(host string) bool {
	host = strings.TrimSuffix(host, ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// ownAddr reports whether a, not a loopback address, is an address of this
// machine: a connection to it reaches the node itself, as loopback does.
// When the machine's addresses cannot be read, every address may be one.
func ownAddr(a netip.Addr) bool {
	if a.IsLoopback() {
		return false
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == a {
				return true
			}
		}
	}
	return false
}
