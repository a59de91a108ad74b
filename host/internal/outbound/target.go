package outbound

import (
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/kube32/kube32/abi"
)

// Kind tells what a Target names.
type Kind int

const (
	// ServiceTarget is a Service in the cluster.
	ServiceTarget Kind = iota + 1
	// OutsideTarget is a host outside the cluster.
	OutsideTarget
)

// String names the kind, for messages and tests.
func (k Kind) String() string {
	switch k {
	case ServiceTarget:
		return "service"
	case OutsideTarget:
		return "outside"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Default ports of hosts outside the cluster.
const (
	httpPort  = 80
	httpsPort = 443
)

// Target is where a k32_http_call goes, as ParseTarget read it from the URL.
type Target struct {
	Kind   Kind
	Scheme string // "http" or "https" (https is always OutsideTarget)

	// Namespace and Service name the Service of a ServiceTarget.
	Namespace string
	Service   string

	// Host is the host name (lower case) or IPv4 address (dotted, the
	// address a connection reaches: 127.0.0.1 for 0.0.0.0 or 127.1) of an
	// OutsideTarget; for a ServiceTarget, the host as the URL wrote it
	// (lower case), which Outside() looks up when FallbackOutside is set.
	Host string

	// Port is the URL's port. For a ServiceTarget, 0 means the Service's
	// first port; for an OutsideTarget it is never 0 (80, or 443 for
	// https, when the URL has none).
	Port int

	// FallbackOutside is set for the "<service>.<namespace>" form: when no
	// such Service exists, the caller looks the name up as a host outside
	// the cluster instead (see Outside).
	FallbackOutside bool

	// HostHeader is the Host header a host outside the cluster receives:
	// host[:port] as the URL wrote it.
	HostHeader string

	// RequestURI is the request target: the escaped path (at least "/")
	// and the query, without the fragment.
	RequestURI string
}

// serviceName names a ServiceTarget in log lines:
// "<service>.<namespace>", and ":<port>" when the URL has one.
func (t Target) ServiceName() string {
	name := t.Service + "." + t.Namespace
	if t.Port != 0 {
		name += ":" + strconv.Itoa(t.Port)
	}
	return name
}

// Outside returns t as a host outside the cluster: the same target for an
// OutsideTarget, and for a "<service>.<namespace>" ServiceTarget the name
// looked up outside, on the URL's port or 80.
func (t Target) Outside() Target {
	if t.Kind == OutsideTarget {
		return t
	}
	o := t
	o.Kind, o.Namespace, o.Service, o.FallbackOutside = OutsideTarget, "", "", false
	if o.Port == 0 {
		o.Port = httpPort
	}
	return o
}

// Addr returns "host:port" of an OutsideTarget, for messages.
func (t Target) Addr() string { return net.JoinHostPort(t.Host, strconv.Itoa(t.Port)) }

// ParseTarget reads a k32_http_call URL, http://<host>[:<port>]<path> or
// https://<host>[:<port>]<path>, for a caller in namespace. The host of an
// http:// URL resolves as a Kubernetes DNS name does inside a pod:
//
//	<service>                                  the Service in namespace
//	<service>.<namespace>                      that Service, else a host outside (FallbackOutside)
//	<service>.<namespace>.svc[.cluster.local]  that Service
//	an IPv4 address or any other DNS name      a host outside the cluster
//
// An https:// URL always names a host outside. A malformed URL (another
// scheme, user info, no host, a bad port, an IPv6 literal, white space or
// control bytes, an IPv4 address that does not parse) fails with
// abi.Errno(K32_ERR_INVAL). An IPv4 address in any spelling (127.1,
// 0x7f000001, 0.0.0.0) becomes, in Host, the address it reaches, as
// hostAddr says; HostHeader keeps it as written. A ".svc" name whose
// labels cannot be a Service and namespace fails with K32_ERR_NOENT: no such
// Service can exist.
func ParseTarget(rawURL string, namespace string) (Target, error) {
	inval := abi.ErrInval
	for i := 0; i < len(rawURL); i++ {
		if c := rawURL[i]; c <= ' ' || c == 0x7f {
			return Target{}, inval // the request line cannot carry it
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" {
		return Target{}, inval
	}
	t := Target{Scheme: strings.ToLower(u.Scheme), HostHeader: u.Host, RequestURI: u.EscapedPath()}
	if t.Scheme != "http" && t.Scheme != "https" {
		return Target{}, inval
	}
	if t.RequestURI == "" {
		t.RequestURI = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		t.RequestURI += "?" + u.RawQuery
	}
	host, port := u.Hostname(), u.Port()
	if strings.HasPrefix(u.Host, "[") || host == "" || strings.HasSuffix(u.Host, ":") {
		return Target{}, inval // IPv6 literal (nodes are IPv4 only), or "host:" without a port
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port[0] == '0' {
			return Target{}, inval
		}
		t.Port = n
	}
	t.Host = strings.ToLower(host)
	switch addr, ok, err := hostAddr(t.Host); {
	case err != nil:
		return Target{}, inval // a malformed IPv4 address, or IPv6
	case ok:
		t.Host = addr.String() // the address it reaches: what the policy sees and the node dials
	case !validDNSName(t.Host):
		return Target{}, inval
	}
	if t.Scheme == "https" {
		return t.outside(httpsPort), nil
	}
	return t.resolve(namespace)
}

// resolve applies the host resolution table to an http:// target.
func (t Target) resolve(namespace string) (Target, error) {
	if _, err := netip.ParseAddr(t.Host); err == nil {
		return t.outside(httpPort), nil
	}
	labels := strings.Split(strings.TrimSuffix(t.Host, "."), ".")
	switch {
	case len(labels) == 1 && validServiceName(labels[0]):
		return t.service(namespace, labels[0]), nil
	case len(labels) == 2 && validServiceName(labels[0]) && validNamespace(labels[1]):
		s := t.service(labels[1], labels[0])
		s.FallbackOutside = true
		return s, nil
	case len(labels) == 3 && labels[2] == "svc",
		len(labels) == 5 && labels[2] == "svc" && labels[3] == "cluster" && labels[4] == "local":
		if !validServiceName(labels[0]) || !validNamespace(labels[1]) {
			return Target{}, abi.ErrNoEnt
		}
		return t.service(labels[1], labels[0]), nil
	}
	return t.outside(httpPort), nil
}

// service makes t a ServiceTarget.
func (t Target) service(namespace, name string) Target {
	t.Kind, t.Namespace, t.Service = ServiceTarget, namespace, name
	return t
}

// outside makes t an OutsideTarget with defaultPort when the URL has none.
func (t Target) outside(defaultPort int) Target {
	t.Kind = OutsideTarget
	if t.Port == 0 {
		t.Port = defaultPort
	}
	return t
}

// validServiceName reports whether s can name a Service: an RFC 1035 label
// (lower-case letters, digits and '-', starting with a letter, at most 63).
func validServiceName(s string) bool {
	return validLabel(s) && s[0] >= 'a' && s[0] <= 'z'
}

// validNamespace reports whether s can name a namespace: an RFC 1123 label.
func validNamespace(s string) bool { return validLabel(s) }

// validLabel reports whether s is an RFC 1123 DNS label in lower case.
func validLabel(s string) bool {
	if s == "" || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// validDNSName reports whether s (lower case) is a host name a resolver can
// look up: dot-separated labels of letters, digits, '-' and '_' (seen in
// real names), with an optional final dot.
func validDNSName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
