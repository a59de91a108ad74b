package kubeletapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// floodClients is how many clients flood the API at once.
const floodClients = 100

// validWithin is how soon a valid request must be answered during a flood
// (docs/kubeletapi.md, "Floods of bogus credentials").
const validWithin = time.Second

// floodStarvesNoValidRequest floods a fresh kubelet API of n, whose
// reviews the real control plane of admin makes, with floodClients
// concurrent clients from 127.0.0.1 sending bogus tokens on served paths,
// invented methods and invented paths, and invented methods with the
// token of a real user without rights; meanwhile valid tokens read
// /metrics/resource: the cluster administrator's, known before the flood,
// from the flooding address itself, and new tokens of a ServiceAccount
// allowed nodes/metrics (as metrics-server's) from 127.0.0.2. Every valid
// request answers 200 within validWithin.
func floodStarvesNoValidRequest(t *testing.T, n *node, admin *rest.Config, adminToken string, metrics http.Handler) {
	ctx := context.Background()
	clients := kubernetes.NewForConfigOrDie(admin)
	s, addr := startAPI(t, n, Config{Reviews: admin, ResourceMetrics: metrics})
	base := "https://" + addr
	rightless := serviceAccountToken(t, clients, "flooder")
	reader := metricsReader(t, clients)

	// The administrator's token is known before the flood, as
	// metrics-server's is between its scrapes.
	flooding, other := clientFrom("127.0.0.1", 2), clientFrom("127.0.0.2", 2)
	if code, body := do(t, flooding, "GET", base+"/metrics/resource", adminToken); code != http.StatusOK {
		t.Fatalf("GET /metrics/resource as admin before the flood: %d %q", code, body)
	}

	floodCtx, stop := context.WithCancel(ctx)
	var (
		mu    sync.Mutex
		codes = map[int]int{}
		wg    sync.WaitGroup
	)
	flood := clientFrom("127.0.0.1", floodClients)
	start := time.Now()
	for g := range floodClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; floodCtx.Err() == nil; i++ {
				bogus := fmt.Sprintf("bogus-%d-%d", g, i)
				method, path, token := "GET", "/metrics/resource", bogus
				switch i % 5 {
				case 1:
					method, path = fmt.Sprintf("FLOOD%dX%d", g, i), "/containerLogs/default/web/main"
				case 2:
					path = fmt.Sprintf("/invented/%d/%d", g, i)
				case 3:
					method, path, token = fmt.Sprintf("INVENTED%dX%d", g, i), "/portForward/default/web", rightless
				case 4:
					path, token = "/containerLogs/default/web/main", rightless
				}
				req, err := http.NewRequestWithContext(floodCtx, method, base+path, nil)
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := flood.Do(req)
				if err != nil {
					if floodCtx.Err() == nil {
						t.Errorf("flood: %s %s: %v", method, path, err)
					}
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	defer func() { stop(); wg.Wait() }()
	testenv.Eventually(t, "the flood's address to spend its budget of reviews (429)", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return codes[http.StatusTooManyRequests] > 0
	})

	slowest := map[string]time.Duration{}
	valid := func(c *http.Client, kind, who, token string) {
		t.Helper()
		began := time.Now()
		code, body := do(t, c, "GET", base+"/metrics/resource", token)
		took := time.Since(began)
		slowest[kind] = max(slowest[kind], took)
		if code != http.StatusOK || took > validWithin {
			t.Errorf("GET /metrics/resource as %s during the flood: %d %q in %v, want 200 within %v", who, code, body, took, validWithin)
		}
	}
	const rounds = 10
	for round := range rounds {
		valid(flooding, "known", "admin from the flooding address", adminToken)
		fresh := tokenOf(t, clients, reader)
		valid(other, "new", fmt.Sprintf("a new token of %s (%d)", reader, round), fresh)
		valid(other, "known", fmt.Sprintf("the same token of %s again (%d)", reader, round), fresh)
		time.Sleep(200 * time.Millisecond)
	}
	stop()
	wg.Wait()
	elapsed := time.Since(start)

	mu.Lock()
	defer mu.Unlock()
	var seen []string
	total := 0
	for code, count := range codes {
		seen = append(seen, fmt.Sprintf("%d×%d", code, count))
		total += count
	}
	sort.Strings(seen)
	t.Logf("%d flood requests in %v (%s); slowest valid request with a known token %v, with a new one %v",
		total, elapsed.Round(time.Millisecond), seen, slowest["known"], slowest["new"])
	for _, code := range []int{http.StatusUnauthorized, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusTooManyRequests} {
		if codes[code] == 0 {
			t.Errorf("the flood got no %d: it did not reach what it floods", code)
		}
	}
	for code := range codes {
		switch code {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusTooManyRequests:
		default:
			t.Errorf("the flood got %d %d times: bogus tokens and invented methods get 401, 403, 404, 405 or 429 only", code, codes[code])
		}
	}
	// The flooding address had at most its budget of tokens reviewed:
	// TokenGuessBurst at once, TokenGuessRate a second.
	if most := abi.TokenGuessBurst + int(elapsed.Seconds()*abi.TokenGuessRate) + 1; s.reviews.refused.len() > most {
		t.Errorf("%d bogus tokens reviewed in %v, more than the address's budget of %d", s.reviews.refused.len(), elapsed, most)
	}
	// Invented methods made no SubjectAccessReview: the accesses kept are
	// the administrator's metrics, the logs of the user without rights,
	// and the metrics of each new token of the reader (a ServiceAccount
	// token's user has its own credential-id).
	if got, most := s.reviews.accesses.len(), 2+rounds; got > most {
		t.Errorf("%d accesses kept after the flood, want at most %d: invented methods were reviewed", got, most)
	}
}

// serviceAccountToken creates ServiceAccount default/name and returns a
// token of it.
func serviceAccountToken(t *testing.T, clients kubernetes.Interface, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	if _, err := clients.CoreV1().ServiceAccounts("default").Create(context.Background(), sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return tokenOf(t, clients, name)
}

// tokenOf returns a new token of ServiceAccount default/name.
func tokenOf(t *testing.T, clients kubernetes.Interface, name string) string {
	t.Helper()
	tr, err := clients.CoreV1().ServiceAccounts("default").CreateToken(context.Background(), name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// metricsReader creates ServiceAccount default/metrics-reader allowed to
// get nodes/metrics, as metrics-server's ClusterRole allows it, and
// returns its name once the cluster's authorizer says so.
func metricsReader(t *testing.T, clients kubernetes.Interface) string {
	t.Helper()
	ctx := context.Background()
	const name = "metrics-reader"
	serviceAccountToken(t, clients, name)
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}}}}
	if _, err := clients.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: name}}}
	if _, err := clients.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// RBAC takes a new binding from its informer a moment later; a review
	// before would be refused, and the refusal kept.
	testenv.Eventually(t, "RBAC to allow "+name+" nodes/metrics", func() bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: "system:serviceaccount:default:" + name, Groups: []string{"system:serviceaccounts"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Version: "v1", Resource: "nodes", Subresource: "metrics", Name: nodeName},
		}}
		got, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		return err == nil && got.Status.Allowed
	})
	return name
}
