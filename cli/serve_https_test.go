package cli_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kube32/kube32/host"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// kubeconfigCluster is the server and CA the context named name points at.
func kubeconfigCluster(t *testing.T, path, name string) (server string, ca []byte) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := cfg.Contexts[name]
	if ctx == nil || cfg.Clusters[ctx.Cluster] == nil {
		t.Fatalf("no context %s in %s", name, path)
	}
	cl := cfg.Clusters[ctx.Cluster]
	if cl.InsecureSkipTLSVerify {
		t.Errorf("context %s skips TLS verification", name)
	}
	return cl.Server, cl.CertificateAuthorityData
}

// servingCert is the certificate the server at an https:// URL presents,
// checked against ca alone.
func servingCert(t *testing.T, server string, ca []byte) *x509.Certificate {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		t.Fatalf("no certificate in the CA data %q", ca)
	}
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: roots})
	if err != nil {
		t.Fatalf("TLS to %s with the kubeconfig's CA: %v", server, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// The kube32 context points at the HTTPS endpoint with the CA that signed
// its certificate, for 127.0.0.1 and localhost alike; plain HTTP stays on
// the API port; both ask for the same token, and kubectl, which sends a
// token over HTTPS only, now works with serve --token.
func TestServeHTTPSWithTokenAndKubectl(t *testing.T) {
	kubectl := testenv.Tool(t, "kubectl")
	t.Chdir(t.TempDir())
	config := filepath.Join(t.TempDir(), "config")
	const token = "s3cret-token"
	c, out := testserve.Serve(t, "--kubeconfig", config, "--context", "kube32", "--cert-dir", t.TempDir(), "--token", token)
	server, ca := kubeconfigCluster(t, config, "kube32")
	if server != c.APITLSURL() || !strings.HasPrefix(server, "https://127.0.0.1:") || !bytes.Equal(ca, c.APICA()) {
		t.Fatalf("context kube32 -> %s with CA of %d bytes; want %s and the cluster's CA", server, len(ca), c.APITLSURL())
	}
	if !strings.Contains(out.String(), "api-tls  "+c.APITLSURL()+"  (CA ") {
		t.Errorf("serve does not print the HTTPS endpoint:\n%s", out)
	}
	if !strings.Contains(out.String(), "\n  ui       "+c.APITLSURL()+"/ui/\n") {
		t.Errorf("serve does not print the web view's address on the HTTPS port:\n%s", out)
	}
	servingCert(t, server, ca)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(server, "https://"))
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	status := func(url, bearer string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", url, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, base := range []string{c.APIURL(), server, "https://localhost:" + port} {
		for _, tc := range []struct {
			path, bearer string
			want         int
		}{{"/readyz", "", 200}, {"/api/v1/pods", "", 401}, {"/api/v1/pods", "wrong", 401}, {"/api/v1/pods", token, 200}} {
			if got := status(base+tc.path, tc.bearer); got != tc.want {
				t.Errorf("GET %s%s with token %q: %d, want %d", base, tc.path, tc.bearer, got, tc.want)
			}
		}
	}

	kubectlRun := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", config, "--context", "kube32", "--cache-dir", t.TempDir(), "--request-timeout", "20s"}, args...)...)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if got, err := kubectlRun("get", "pods", "-o", "name"); err != nil || strings.TrimSpace(got) != "pod/echo" {
		t.Errorf("kubectl --context kube32 get pods with serve --token: %v\n%s", err, got)
	}
	// client-go's words for a 401.
	if got, err := kubectlRun("--token", "wrong", "get", "pods"); err == nil || !strings.Contains(got, "the server has asked for the client to provide credentials") {
		t.Errorf("kubectl with a wrong token: %v\n%s, want a 401", err, got)
	}
}

// A second serve with the same folder serves the same certificate under
// the same CA; past its end, the next serve makes a new one, says so, and
// keeps the CA, so that kubeconfigs written before still verify it.
func TestServeKeepsItsCertificateAndRenewsItWhenExpired(t *testing.T) {
	t.Chdir(t.TempDir())
	certDir, config := t.TempDir(), filepath.Join(t.TempDir(), "config")
	start := func() (*host.Cluster, *testserve.Output, func()) {
		return testserve.Start(t, "--kubeconfig", config, "--context", "kube32", "--cert-dir", certDir)
	}
	c, _, stop := start()
	server, ca := kubeconfigCluster(t, config, "kube32")
	first := servingCert(t, server, ca)
	if c.APICAFile() != filepath.Join(certDir, "ca.crt") {
		t.Errorf("APICAFile = %q", c.APICAFile())
	}
	if onDisk, err := os.ReadFile(c.APICAFile()); err != nil || !bytes.Equal(onDisk, ca) {
		t.Errorf("%s holds another CA than the kubeconfig's: %v", c.APICAFile(), err)
	}
	stop()

	_, out, stop := start()
	server, again := kubeconfigCluster(t, config, "kube32")
	if second := servingCert(t, server, again); !bytes.Equal(again, ca) || !second.Equal(first) {
		t.Errorf("the second serve made a new CA (%v) or certificate (%v)", !bytes.Equal(again, ca), !second.Equal(first))
	}
	if strings.Contains(out.String(), "making a new") {
		t.Errorf("the second serve replaced a good file:\n%s", out)
	}
	stop()

	writeExpiredCert(t, certDir)
	_, out, _ = start()
	server, renewedCA := kubeconfigCluster(t, config, "kube32")
	renewed := servingCert(t, server, ca) // the first CA still verifies it
	if renewed.Equal(first) || !renewed.NotAfter.After(time.Now()) || !bytes.Equal(renewedCA, ca) {
		t.Errorf("after expiry: new certificate %v, ends %v, same CA %v", !renewed.Equal(first), renewed.NotAfter, bytes.Equal(renewedCA, ca))
	}
	if want := "API serving certificate " + filepath.Join(certDir, "apiserver.crt") + ": "; !strings.Contains(out.String(), want) {
		t.Errorf("serve does not say it renewed the certificate (%q):\n%s", want, out)
	}
}

// writeExpiredCert replaces the serving certificate in dir with one its CA
// signed that expired an hour ago.
func writeExpiredCert(t *testing.T, dir string) {
	t.Helper()
	ca, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "expired"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Leaf, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	if err := os.WriteFile(filepath.Join(dir, "apiserver.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "apiserver.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}
