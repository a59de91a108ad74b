package nodecert

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/k8sinstall"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testk8s"
	"github.com/kube32/kube32/internal/testkit/testtls"
)

// TestNodeCertificateOnARealCluster is a kube32 node's TLS bootstrap on a
// real control plane (internal/testkit/testk8s: kube-controller-manager approves
// and signs, kube-apiserver authorizes with Node,RBAC), after kube32
// install: each subtest builds on the folder the previous left
// (docs/kubernetes.md, "The node's identity").
func TestNodeCertificateOnARealCluster(t *testing.T) {
	kubectlPath := testenv.Tool(t, "kubectl")
	c := testk8s.Start(t)
	ctx := context.Background()
	kubectl := func(kubeconfig string, args ...string) (string, error) {
		cmd := exec.Command(kubectlPath, append([]string{"--kubeconfig", kubeconfig}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECONFIG=")
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("kubectl %s: %v\n%s", strings.Join(args, " "), err, ee.Stderr)
		}
		return strings.TrimSpace(string(out)), err
	}
	admin := restConfig(t, c.Kubeconfig)
	if err := k8sinstall.Apply(ctx, admin, func(string) {}); err != nil {
		t.Fatal(err)
	}
	token, err := kubectl(c.Kubeconfig, "create", "token", k8sinstall.NodeAccount, "-n", abi.NamespaceSystem)
	if err != nil {
		t.Fatal(err)
	}
	bootstrap := restConfig(t, c.TokenKubeconfig(t, token))
	dir := t.TempDir()
	file := filepath.Join(dir, File)
	logs := &lines{}
	opts := Options{Bootstrap: bootstrap, Node: "kube32-a", Dir: dir, Logf: logs.add}
	csrs := func() []certificatesv1.CertificateSigningRequest {
		t.Helper()
		out, err := kubectl(c.Kubeconfig, "get", "csr", "-o", "json")
		if err != nil {
			t.Fatal(err)
		}
		var list certificatesv1.CertificateSigningRequestList
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		sort.SliceStable(list.Items, func(i, j int) bool {
			return list.Items[i].CreationTimestamp.Before(&list.Items[j].CreationTimestamp)
		})
		return list.Items
	}

	var first *x509.Certificate
	t.Run("the first certificate is asked for as kube32-node and approved by kube-controller-manager", func(t *testing.T) {
		creds, err := Bootstrap(ctx, opts)
		if err != nil {
			t.Fatalf("Bootstrap: %v\nlog:\n%s", err, logs)
		}
		first = creds.Certificate()
		if first.Subject.CommonName != "system:node:kube32-a" || strings.Join(first.Subject.Organization, ",") != "system:nodes" {
			t.Errorf("certificate for %s in %v, want system:node:kube32-a in system:nodes", first.Subject.CommonName, first.Subject.Organization)
		}
		if _, err := first.Verify(x509.VerifyOptions{Roots: c.CA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Errorf("the certificate is not a client certificate of the cluster CA: %v", err)
		}
		list := csrs()
		if len(list) != 1 {
			t.Fatalf("%d CSRs, want 1", len(list))
		}
		csr := list[0]
		approved := ""
		for _, cond := range csr.Status.Conditions {
			if cond.Type == certificatesv1.CertificateApproved {
				approved = cond.Reason
			}
		}
		if csr.Spec.Username != "system:serviceaccount:kube32-system:kube32-node" || csr.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName || approved != "AutoApproved" {
			t.Errorf("CSR %s by %s, signer %s, approved %q; want kube32-node's, of the kubelet client signer, approved by kube-controller-manager",
				csr.Name, csr.Spec.Username, csr.Spec.SignerName, approved)
		}
		// The cluster takes the kept certificate as the node: real kubectl
		// with a kubeconfig of the file.
		who, err := kubectl(c.CertKubeconfig(t, file, file), "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
		if err != nil || !strings.HasPrefix(who, "system:node:kube32-a ") || !strings.Contains(who, `"system:nodes"`) {
			t.Errorf("kubectl auth whoami with the kept certificate: %q %v; want system:node:kube32-a in system:nodes", who, err)
		}
	})
	if first == nil {
		t.Fatal("no first certificate; the rest needs it")
	}

	t.Run("a restarted node takes its kept certificate back, asking for none", func(t *testing.T) {
		creds, err := Bootstrap(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !creds.Certificate().Equal(first) {
			t.Errorf("certificate serial %s, want the kept one's %s", creds.Certificate().SerialNumber, first.SerialNumber)
		}
		if n := len(csrs()); n != 1 {
			t.Errorf("%d CSRs after a restart, want still 1", n)
		}
	})

	t.Run("a kept certificate past its renewal point is renewed by the node as itself", func(t *testing.T) {
		now := time.Now()
		old := nodeCert(t, c.CA, "system:node:kube32-a", now.Add(-50*time.Minute), now.Add(10*time.Minute))
		if err := save(dir, old); err != nil {
			t.Fatal(err)
		}
		// The renewal's CSR is the one that was not there before: the
		// first may have been made in the same second, and creation
		// times have no finer grain to tell them apart.
		before := map[string]bool{}
		for _, csr := range csrs() {
			before[csr.Name] = true
		}
		creds, err := Bootstrap(ctx, opts)
		if err != nil {
			t.Fatalf("Bootstrap: %v\nlog:\n%s", err, logs)
		}
		if creds.Certificate().Equal(old.Leaf) || creds.Certificate().NotAfter.Before(now.Add(time.Hour)) {
			t.Errorf("certificate until %s, want a new one", creds.Certificate().NotAfter)
		}
		var made []certificatesv1.CertificateSigningRequest
		for _, csr := range csrs() {
			if !before[csr.Name] {
				made = append(made, csr)
			}
		}
		// selfnodeclient: kube32 install lets every node renew its own.
		if len(made) != 1 || made[0].Spec.Username != "system:node:kube32-a" {
			for _, csr := range made {
				t.Logf("new CSR %s by %s", csr.Name, csr.Spec.Username)
			}
			t.Errorf("%d new CSRs for the renewal, want one by the node itself", len(made))
		}
	})

	t.Run("Run renews the certificate at its renewal point, and the node's requests go on with the new one", func(t *testing.T) {
		// Renewal point in 8 s (80 % of a minute); the old one expires
		// 12 s after.
		now := time.Now()
		old := nodeCert(t, c.CA, "system:node:kube32-a", now.Add(-40*time.Second), now.Add(20*time.Second))
		if err := save(dir, old); err != nil {
			t.Fatal(err)
		}
		creds, err := Bootstrap(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !creds.Certificate().Equal(old.Leaf) {
			t.Fatal("Bootstrap replaced a certificate short of its renewal point")
		}
		// A connection made with the old certificate, kept alive.
		if err := creds.probe(ctx); err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); creds.Run(runCtx) }()
		t.Cleanup(func() { cancel(); <-done })
		testenv.Eventually(t, "Run to renew the certificate", func() bool { return !creds.Certificate().Equal(old.Leaf) })
		kept, err := load(dir, "kube32-a", time.Now())
		if err != nil || kept == nil || !kept.Leaf.Equal(creds.Certificate()) {
			t.Errorf("the folder holds %v (%v), want the renewed certificate", kept, err)
		}
		// Past the old certificate's end, kube-apiserver refuses every
		// request still made with it: the node's go on.
		time.Sleep(time.Until(old.Leaf.NotAfter.Add(time.Second)))
		if err := creds.probe(ctx); err != nil {
			t.Errorf("a request after the old certificate expired: %v", err)
		}
	})

	t.Run("a kept certificate the cluster does not accept is replaced", func(t *testing.T) {
		now := time.Now()
		foreign := nodeCert(t, testtls.NewCA(t), "system:node:kube32-a", now.Add(-time.Minute), now.Add(time.Hour))
		if err := save(dir, foreign); err != nil {
			t.Fatal(err)
		}
		creds, err := Bootstrap(ctx, opts)
		if err != nil {
			t.Fatalf("Bootstrap: %v\nlog:\n%s", err, logs)
		}
		if creds.Certificate().Equal(foreign.Leaf) || !strings.Contains(logs.String(), "no longer accepts the certificate") {
			t.Errorf("certificate %s kept, log:\n%s; want a new one and a line saying why", creds.Certificate().Issuer, logs)
		}
	})

	t.Run("an identity that may not ask for a node certificate is told how to get one", func(t *testing.T) {
		token, err := kubectl(c.Kubeconfig, "create", "token", k8sinstall.IngressAccount, "-n", abi.NamespaceSystem)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bootstrap(ctx, Options{Bootstrap: restConfig(t, c.TokenKubeconfig(t, token)), Node: "kube32-b"})
		if err == nil || !strings.Contains(err.Error(), "may not") || !strings.Contains(err.Error(), "kube32-node") {
			t.Errorf("Bootstrap as kube32-ingress: %v; want an error naming the kube32-node ServiceAccount", err)
		}
	})
}

func restConfig(t *testing.T, kubeconfig string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// lines collects log lines.
type lines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
