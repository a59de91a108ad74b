package apiserver_test

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// TestKubectlAuth: kubectl auth can-i, can-i --list and whoami against a
// cluster with one user.
func TestKubectlAuth(t *testing.T) {
	e := startCluster(t, "")
	if out := e.run(t, false, "auth", "can-i", "create", "pods"); strings.TrimSpace(out) != "yes" {
		t.Errorf("kubectl auth can-i create pods = %q, want yes", out)
	}
	if out := e.run(t, false, "auth", "can-i", "delete", "nodes", "--all-namespaces"); strings.TrimSpace(out) != "yes" {
		t.Errorf("kubectl auth can-i delete nodes = %q, want yes", out)
	}
	header, rows := table(e.run(t, false, "auth", "whoami"))
	if strings.Join(header, " ") != "ATTRIBUTE VALUE" || len(rows) != 2 ||
		strings.Join(rows[0], " ") != "Username kube32-admin" || strings.Join(rows[1], " ") != "Groups [system:masters system:authenticated]" {
		t.Errorf("kubectl auth whoami: %q %q", header, rows)
	}
	out := e.run(t, false, "auth", "can-i", "--list")
	if header, rows := table(out); len(header) == 0 || header[0] != "Resources" || len(rows) != 2 || rows[0][0] != "*.*" {
		t.Errorf("kubectl auth can-i --list:\n%s", out)
	}
}

// TestReviewsNeedTheToken: with a token, a review without it is 401, and
// nothing is kept of the ones answered.
func TestReviewsNeedTheToken(t *testing.T) {
	s := store.New()
	srv, _ := bareServer(t, s, "t0ken")
	url := srv.URL + "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	body := `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`
	if r := testhttp.Post(t, url, body, "Content-Type: application/json"); r.Status != 401 {
		t.Errorf("review without the token: %s", r)
	}
	r := testhttp.Post(t, url, body, "Content-Type: application/json", "Authorization: Bearer t0ken")
	if r.Status != 201 || !strings.Contains(r.Body, `"allowed":true`) || !strings.Contains(r.Body, `"verb":"get"`) {
		t.Errorf("review with the token: %s", r)
	}
	if r := testhttp.Get(t, url, "Authorization: Bearer t0ken"); r.Status != 405 {
		t.Errorf("GET of a review resource: %s, want 405", r)
	}
	if n := len(s.List("SelfSubjectAccessReview", "")); n != 0 {
		t.Errorf("the store holds %d reviews", n)
	}
}
