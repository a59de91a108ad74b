package nodecert

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testtls"
)

// nodeCert is a client certificate of node from ca, valid from notBefore
// to notAfter.
func nodeCert(t *testing.T, ca *testtls.CA, cn string, notBefore, notAfter time.Time) *tls.Certificate {
	t.Helper()
	c := ca.Issue(t, testtls.Leaf{Client: true, CommonName: cn, Organizations: []string{nodesGroup}, NotBefore: notBefore, NotAfter: notAfter})
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	c.Leaf = leaf
	return &c
}

// A node keeps its certificate in its folder, readable by its owner only,
// and takes it back only while it is its own and valid; anything else is
// named and replaced (docs/kubernetes.md, "The node's identity").
func TestKeptCertificateIsReusedOnlyWhileGood(t *testing.T) {
	ca := testtls.NewCA(t)
	now := time.Now()
	dir := t.TempDir()
	if c, err := load(dir, "kube32-a", now); c != nil || err != nil {
		t.Fatalf("an empty folder: %v, %v; want nothing and no error", c, err)
	}
	good := nodeCert(t, ca, "system:node:kube32-a", now.Add(-time.Hour), now.Add(time.Hour))
	if err := save(dir, good); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, File))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, %v; want mode 0600", File, info, err)
	}
	got, err := load(dir, "kube32-a", now)
	if err != nil || got == nil || !got.Leaf.Equal(good.Leaf) {
		t.Fatalf("load after save: %v, %v; want the saved certificate", got, err)
	}
	if _, err := tls.X509KeyPair(mustRead(t, filepath.Join(dir, File)), mustRead(t, filepath.Join(dir, File))); err != nil {
		t.Errorf("%s is not one PEM file of key and certificate, as a kubeconfig's client-certificate and client-key take it: %v", File, err)
	}

	for _, c := range []struct {
		what string
		cert *tls.Certificate
		node string
		want string
	}{
		{"another node's", good, "kube32-b", `is for "system:node:kube32-a", not system:node:kube32-b`},
		{"expired", nodeCert(t, ca, "system:node:kube32-a", now.Add(-2*time.Hour), now.Add(-time.Hour)), "kube32-a", "expired"},
		{"not yet valid", nodeCert(t, ca, "system:node:kube32-a", now.Add(time.Hour), now.Add(2*time.Hour)), "kube32-a", "not valid before"},
	} {
		if err := save(dir, c.cert); err != nil {
			t.Fatal(err)
		}
		if got, err := load(dir, c.node, now); got != nil || err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), File) {
			t.Errorf("%s certificate: %v, %v; want none and an error naming %s and saying %q", c.what, got, err, File, c.want)
		}
	}

	if err := save(dir, good); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, File), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := load(dir, "kube32-a", now); got != nil || err == nil || !strings.Contains(err.Error(), "readable by others") {
		t.Errorf("a key others may read: %v, %v; want it refused", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, File), []byte("not PEM"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := load(dir, "kube32-a", now); got != nil || err == nil {
		t.Errorf("a file that is no certificate: %v, %v; want it refused", got, err)
	}
	if got, err := load("", "kube32-a", now); got != nil || err != nil {
		t.Errorf("no folder: %v, %v; want nothing kept", got, err)
	}
}

// The node asks for its next certificate once abi.NodeCertRenewPercent
// (80 %) of the current one's validity has passed.
func TestRenewalPoint(t *testing.T) {
	ca := testtls.NewCA(t)
	start := time.Now().Truncate(time.Second)
	c := nodeCert(t, ca, "system:node:kube32-a", start, start.Add(100*time.Hour))
	if got, want := renewAt(c.Leaf), start.Add(80*time.Hour); !got.Equal(want) {
		t.Errorf("renewAt %s, want %s", got, want)
	}
	if renewDue(c.Leaf, start.Add(79*time.Hour)) || !renewDue(c.Leaf, start.Add(80*time.Hour)) {
		t.Error("renewDue disagrees with renewAt")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
