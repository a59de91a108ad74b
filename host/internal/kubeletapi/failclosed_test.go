package kubeletapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testtls"
)

// The kubelet API fails closed (docs/kubeletapi.md): these need no
// cluster, only one that cannot be reached for reviews.

// A request without a client certificate or a bearer token is 401, on
// every path the API serves, before any review.
func TestNoCredentialsIs401(t *testing.T) {
	n := startNode(t)
	addr := serveAPI(t, n, Config{Reviews: closedPort(t)})
	for _, path := range []string{"/containerLogs/default/web/main", "/portForward/default/web", "/healthz", "/exec/default/web/main"} {
		if code, body := do(t, client(), "GET", "https://"+addr+path, ""); code != http.StatusUnauthorized || !strings.Contains(body, "Unauthorized") {
			t.Errorf("GET %s without credentials: %d %q, want 401", path, code, body)
		}
	}
}

// A client certificate that Config.ClientCAs did not sign is no
// credential: 401, not a failed handshake and never a way in.
func TestUntrustedClientCertIs401(t *testing.T) {
	n := startNode(t)
	trusted, other := testtls.NewCA(t), testtls.NewCA(t)
	addr := serveAPI(t, n, Config{Reviews: closedPort(t), ClientCAs: trusted.Pool()})
	cert := other.Issue(t, testtls.Leaf{Client: true, CommonName: "kube-apiserver-kubelet-client", Organizations: []string{"system:masters"}})
	if code, body := do(t, client(cert), "GET", "https://"+addr+"/containerLogs/default/web/main", ""); code != http.StatusUnauthorized {
		t.Errorf("logs with a certificate of an untrusted CA: %d %q, want 401", code, body)
	}
	// A server certificate of the trusted CA is not a client's either.
	server := trusted.Issue(t, testtls.Leaf{CommonName: "admin", Organizations: []string{"system:masters"}})
	if code, body := do(t, client(server), "GET", "https://"+addr+"/containerLogs/default/web/main", ""); code != http.StatusUnauthorized {
		t.Errorf("logs with a serving certificate of the trusted CA: %d %q, want 401", code, body)
	}
}

// When the cluster cannot be asked (its API unreachable), a token and even
// a trusted client certificate are refused with 503: never let through.
func TestUnreachableReviewsNeverAllow(t *testing.T) {
	n := startNode(t)
	ca := testtls.NewCA(t)
	addr := serveAPI(t, n, Config{Reviews: closedPort(t), ClientCAs: ca.Pool()})
	url := "https://" + addr + "/containerLogs/default/web/main"
	if code, body := do(t, client(), "GET", url, "some-token"); code != http.StatusServiceUnavailable || !strings.Contains(body, "TokenReview") {
		t.Errorf("logs with a token and no TokenReview possible: %d %q, want 503", code, body)
	}
	cert := ca.Issue(t, testtls.Leaf{Client: true, CommonName: "kube-apiserver-kubelet-client", Organizations: []string{"system:masters"}})
	if code, body := do(t, client(cert), "GET", url, ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "SubjectAccessReview") {
		t.Errorf("logs with a trusted certificate and no SubjectAccessReview possible: %d %q, want 503", code, body)
	}
}

// The API needs a client for its reviews: without one it does not start,
// rather than letting anyone in.
func TestNoReviewsDoesNotStart(t *testing.T) {
	n := startNode(t)
	if _, err := New(Config{NodeName: nodeName, Pods: n.kubelet}); err == nil || !strings.Contains(err.Error(), "Config.Reviews") {
		t.Errorf("New without Reviews: %v, want an error naming Config.Reviews", err)
	}
}
