package kubeconfig

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/url"
	"time"
)

// A Claim is the context of a running serve: written by Take, undone by
// Release when serve stops, unless another serve has taken it over since.
type Claim struct {
	// Replaced is the API URL of the live serve whose context the claim
	// took over; "" when there was none.
	Replaced string

	path     string
	mine     Entry
	previous Entry // what the context pointed at before, when Replaced is set
}

// Take writes e to the kubeconfig at path for a serve that runs until
// Release. When the context of that name points at an API server that
// answers on a loopback address, it belongs to another live serve: Replaced
// names that server, and Release gives the context back to it if it still
// answers then.
func Take(path string, e Entry) (*Claim, error) {
	before, found, err := read(path, e.Name())
	if err != nil {
		return nil, err
	}
	c := &Claim{path: path, mine: e}
	if found && before.Server != e.Server && answers(before) {
		c.Replaced, c.previous = before.Server, before
	}
	if err := Write(path, e); err != nil {
		return nil, err
	}
	return c, nil
}

// Release undoes Take if the context still points at this serve's API: it
// gives the context back to the serve it replaced if that one still
// answers, and otherwise removes the context, cluster and user. A context
// that another serve has taken over since, or that is gone, is left alone.
func (c *Claim) Release() error {
	now, found, err := read(c.path, c.mine.Name())
	if err != nil {
		return err
	}
	if !found || now.Server != c.mine.Server {
		return nil
	}
	if c.Replaced != "" && answers(c.previous) {
		return Write(c.path, c.previous)
	}
	return remove(c.path, c.mine)
}

// answers reports whether the API server of e on a loopback address
// answers GET /readyz, ready or not: that is a running serve. Over HTTPS
// it must present a certificate that e's CA signed. Servers elsewhere are
// never asked.
func answers(e Entry) bool {
	u, err := url.Parse(e.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if ip := net.ParseIP(u.Hostname()); (ip == nil || !ip.IsLoopback()) && u.Hostname() != "localhost" {
		return false
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(e.CA)
	client := http.Client{Timeout: 2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
	resp, err := client.Get(u.JoinPath("readyz").String())
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}
