package kubeletapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// The kubelet API's reviews cannot be starved (docs/kubeletapi.md, "Floods
// of bogus credentials"): these need no cluster, only one that cannot be
// reached, where a review would answer 503.

// Any other path is 404 and any other method 405, as a kubelet's, before
// any review: with a token, or even a trusted client certificate, whose
// review (a TokenReview, a SubjectAccessReview) would answer 503 here.
func TestUnknownPathsAndMethodsMakeNoReview(t *testing.T) {
	n := startNode(t)
	ca := testtls.NewCA(t)
	addr := serveAPI(t, n, Config{Reviews: closedPort(t), ClientCAs: ca.Pool()})
	cert := ca.Issue(t, testtls.Leaf{Client: true, CommonName: "kube-apiserver-kubelet-client", Organizations: []string{"system:masters"}})
	base := "https://" + addr
	for _, c := range []struct {
		method, path string
		code         int
	}{
		{"GET", "/pods", http.StatusNotFound},
		{"GET", "/invented/path", http.StatusNotFound},
		{"GET", "/containerLogs/default/web/main/more", http.StatusNotFound},
		{"FLOOD1", "/containerLogs/default/web/main", http.StatusMethodNotAllowed},
		{"PUT", "/portForward/default/web", http.StatusMethodNotAllowed},
		{"DELETE", "/healthz", http.StatusMethodNotAllowed},
		{"BREW", "/exec/default/web/main", http.StatusMethodNotAllowed},
		{"GET", "/run/default/web/main", http.StatusMethodNotAllowed}, // a kubelet takes POST only
	} {
		if code, body := do(t, client(), c.method, base+c.path, "some-token"); code != c.code {
			t.Errorf("%s %s with a token: %d %q, want %d before any TokenReview", c.method, c.path, code, body, c.code)
		}
		if code, body := do(t, client(cert), c.method, base+c.path, ""); code != c.code {
			t.Errorf("%s %s with a trusted certificate: %d %q, want %d before any SubjectAccessReview", c.method, c.path, code, body, c.code)
		}
	}
	// The same credentials on a route the API serves are reviewed, and so
	// answered 503 here: the codes above were no reviews.
	if code, body := do(t, client(), "GET", base+"/containerLogs/default/web/main", "some-token"); code != http.StatusServiceUnavailable || !strings.Contains(body, "TokenReview") {
		t.Errorf("GET logs with a token: %d %q, want 503 from its TokenReview", code, body)
	}
	if code, body := do(t, client(cert), "POST", base+"/run/default/web/main", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "SubjectAccessReview") {
		t.Errorf("POST run with a trusted certificate: %d %q, want 503 from its SubjectAccessReview", code, body)
	}
}

// A port-forward's 401 names the access a kubelet asks about for it, as
// its GetRequestAttributes maps /portForward/: nodes/proxy (create for
// POST, get for GET), never a log subresource; /metrics/ is nodes/metrics.
func TestUnauthorizedNamesTheSubresource(t *testing.T) {
	n := startNode(t)
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	addr := serveAPI(t, n, Config{Reviews: closedPort(t), ResourceMetrics: metrics})
	for _, c := range []struct{ method, path, want string }{
		{"POST", "/portForward/default/web", "create nodes/proxy (node " + nodeName + ")"},
		{"GET", "/portForward/default/web/some-uid", "get nodes/proxy"},
		{"GET", "/containerLogs/default/web/main", "get nodes/proxy"},
		{"GET", "/metrics/resource", "get nodes/metrics"},
	} {
		code, body := do(t, client(), c.method, "https://"+addr+c.path, "")
		if code != http.StatusUnauthorized || !strings.Contains(body, c.want) || strings.Contains(body, "/log") {
			t.Errorf("%s %s without credentials: %d %q, want 401 naming %q", c.method, c.path, code, body, c.want)
		}
	}
}

// Refused tokens are kept apart from authenticated ones: twice as many
// bogus tokens as a cache holds leave a good token known, and are
// themselves bounded (the oldest go first). Answers from the caches are
// told from reviews by the unreachable cluster, where a review fails.
func TestRefusedTokensNeverPushOutAGoodOne(t *testing.T) {
	rv, err := newReviewer(nodeName, closedPort(t))
	if err != nil {
		t.Fatal(err)
	}
	rv.remember(tokenKey("good"), &user{name: "system:serviceaccount:kube-system:metrics-server"})
	bogus := func(i int) string { return "bogus-" + strconv.Itoa(i) }
	for i := range 2 * abi.KubeletReviewCacheMax {
		rv.remember(tokenKey(bogus(i)), nil)
	}
	if u, _ := rv.kept("good"); u == nil || u.name != "system:serviceaccount:kube-system:metrics-server" {
		t.Errorf("the good token after %d refused ones: %v, want its user", 2*abi.KubeletReviewCacheMax, u)
	}
	ctx := context.Background()
	if u, err := rv.token(ctx, "good"); err != nil || u == nil {
		t.Errorf("token(good): %v %v, want its user from the cache", u, err)
	}
	if u, err := rv.token(ctx, bogus(2*abi.KubeletReviewCacheMax-1)); err != nil || u != nil {
		t.Errorf("token of the latest refused: %v %v, want a refusal from the cache", u, err)
	}
	if _, err := rv.token(ctx, bogus(0)); err == nil {
		t.Error("the oldest refused token is still kept: the refused cache is unbounded")
	}
	if n := rv.refused.len(); n != abi.KubeletReviewCacheMax {
		t.Errorf("%d refused tokens kept, want %d", n, abi.KubeletReviewCacheMax)
	}
}

// The reviews have a budget of their own, shared by both kinds, not
// client-go's default of 5 a second, whatever the node's kubeconfig says.
func TestReviewsHaveTheirOwnBudget(t *testing.T) {
	cfg := closedPort(t)
	cfg.QPS, cfg.Burst = 1, 1
	rv, err := newReviewer(nodeName, cfg)
	if err != nil {
		t.Fatal(err)
	}
	authn, authz := rv.authn.GetRateLimiter(), rv.authz.GetRateLimiter()
	if authn == nil || authn.QPS() != abi.KubeletReviewQPS {
		t.Errorf("TokenReviews' budget %v, want %d a second", authn, abi.KubeletReviewQPS)
	}
	if authn != authz {
		t.Error("TokenReviews and SubjectAccessReviews have two budgets, want one")
	}
	if cap(rv.inFlight) != abi.KubeletReviewsInFlight {
		t.Errorf("%d reviews in flight, want %d", cap(rv.inFlight), abi.KubeletReviewsInFlight)
	}
}
