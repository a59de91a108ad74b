package apiauth

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AcceptHostsFlag is serve's flag that names the host names an API port
// without a token answers besides loopback (docs/serve.md, "Web pages").
const AcceptHostsFlag = "--accept-hosts"

// ParseAcceptHosts reads the value of AcceptHostsFlag: regular expressions
// separated by commas, as kubectl proxy's --accept-hosts takes them, each
// of which must match a whole host name (without its port), in any case.
func ParseAcceptHosts(value string) ([]*regexp.Regexp, error) {
	var hosts []*regexp.Regexp
	for _, part := range strings.Split(value, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		re, err := regexp.Compile(`(?i)^(?:` + part + `)$`)
		if err != nil {
			return nil, fmt.Errorf("%q is not a regular expression: %v", part, err)
		}
		hosts = append(hosts, re)
	}
	return hosts, nil
}

// CheckHost refuses, on a port without a token, a request whose Host is
// neither a loopback address (127.0.0.0/8, ::1), nor localhost, nor a name
// of Config.AcceptHosts: such a request comes through a name that is not
// the machine's own, which is how a web page reaches a local port with its
// own origin's rights (DNS rebinding), so kubectl proxy refuses it too.
// With a token, the token is the check. A CONNECT, whose Host names where
// the relay goes and which no page can send, is not checked here.
func (g *Gate) CheckHost(r *http.Request) error {
	if !g.Open() || r.Method == http.MethodConnect {
		return nil
	}
	host := hostName(r.Host)
	if loopbackHost(host) {
		return nil
	}
	for _, re := range g.acceptHosts {
		if re.MatchString(host) {
			return nil
		}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
		Message: fmt.Sprintf("Host %q is not accepted: without a cluster token the API answers only a loopback address or localhost, "+
			"so that no web page reaches it under a name of its own; allow more host names with %s, or set a cluster token (--token-file)",
			r.Host, AcceptHostsFlag),
	}}
}

// hostName is the host of a Host header, without port or IPv6 brackets, in
// lower case.
func hostName(header string) string {
	host, _, err := net.SplitHostPort(header)
	if err != nil {
		host = header
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(host)
}

// loopbackHost reports whether host names this machine for any resolver:
// an address of 127.0.0.0/8 or ::1, or localhost.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
