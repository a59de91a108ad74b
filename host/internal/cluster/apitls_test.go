package cluster

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// The HTTPS endpoint serves the API with a certificate the cluster's CA
// signed, and its connections share the budget of the others: a client
// that never starts its handshake is idle and makes room for a new one.
func TestAPIOverHTTPSWithinTheConnectionBudget(t *testing.T) {
	const maxConns = 12
	c := startReady(t, Options{MaxConnections: maxConns})
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(c.APICA()) {
		t.Fatal("APICA holds no certificate")
	}
	if c.APICAFile() != "" {
		t.Errorf("APICAFile = %q for a cluster without CertDir", c.APICAFile())
	}
	client := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}}
	get := func() error {
		resp, err := client.Get(c.APITLSURL() + "/api/v1/namespaces/default")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("GET over HTTPS: %s", resp.Status)
			}
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse(c.APITLSURL()); u.Scheme != "https" || u.Hostname() != "127.0.0.1" {
		t.Errorf("APITLSURL = %s", c.APITLSURL())
	}
	// The server closes the first client's connection after the client has
	// its answer: were it still open when the budget fills, a silent client
	// would make room for it and the budget stay one short once it closes.
	testenv.Eventually(t, "the first client's connection to close", func() bool { return c.conns.Open() == 0 })
	silent := make([]*rawConn, maxConns)
	for i := range silent {
		silent[i] = dialRaw(t, c.APITLSURL())
	}
	testenv.Eventually(t, "the budget to be spent", func() bool { return c.conns.Open() >= maxConns })
	if err := get(); err != nil {
		t.Errorf("with the budget spent on silent clients: %v", err)
	}
	testenv.Eventually(t, "the longest-silent client to be closed", silent[0].closedByServer)
}
