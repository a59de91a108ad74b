package kubeconfig

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

const existing = `apiVersion: v1
kind: Config
clusters:
- name: prod
  cluster: {server: https://prod.example:6443}
users:
- name: admin
  user: {token: prod-token}
contexts:
- name: prod
  context: {cluster: prod, user: admin}
current-context: prod
`

func TestWriteKeepsOtherContexts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(existing), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, Entry{Server: "http://127.0.0.1:6443", Token: "t0ken"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "prod" {
		t.Errorf("current context = %q, want prod untouched", cfg.CurrentContext)
	}
	if c := cfg.Clusters["prod"]; c == nil || c.Server != "https://prod.example:6443" || cfg.AuthInfos["admin"].Token != "prod-token" {
		t.Errorf("the prod entries changed: %+v", cfg)
	}
	ctx := cfg.Contexts[Name]
	if ctx == nil || ctx.Cluster != Name || ctx.AuthInfo != Name || cfg.Clusters[Name].Server != "http://127.0.0.1:6443" || cfg.AuthInfos[Name].Token != "t0ken" {
		t.Errorf("kube32 entries: context %+v cluster %+v user %+v", ctx, cfg.Clusters[Name], cfg.AuthInfos[Name])
	}
	// Serving again on another port replaces the kube32 entries only.
	if err := Write(path, Entry{Server: "http://127.0.0.1:7443"}); err != nil {
		t.Fatal(err)
	}
	cfg, _ = clientcmd.LoadFromFile(path)
	if cfg.Clusters[Name].Server != "http://127.0.0.1:7443" || len(cfg.Contexts) != 2 {
		t.Errorf("after a second write: %+v contexts %d", cfg.Clusters[Name], len(cfg.Contexts))
	}
}

func TestWriteSetsTheCAAndClientCertificate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	ca := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	cert, key := []byte("client cert"), []byte("client key")
	if err := Write(path, Entry{Server: "https://127.0.0.1:6444", CA: ca, ClientCert: cert, ClientKey: key}); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters[Name].CertificateAuthorityData; string(got) != string(ca) {
		t.Errorf("certificate-authority-data = %q, want %q", got, ca)
	}
	if u := cfg.AuthInfos[Name]; string(u.ClientCertificateData) != string(cert) || string(u.ClientKeyData) != string(key) {
		t.Errorf("client-certificate-data %q, client-key-data %q", u.ClientCertificateData, u.ClientKeyData)
	}
	if e, _, _ := read(path, Name); string(e.CA) != string(ca) || string(e.ClientCert) != string(cert) || string(e.ClientKey) != string(key) {
		t.Errorf("read back %+v", e)
	}
}

func TestWriteCreatesAFileWithKube32Current(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "config")
	if err := Write(path, Entry{Server: "http://127.0.0.1:6443"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil || cfg.CurrentContext != Name {
		t.Fatalf("new kubeconfig: %v, current context %q", err, cfg.CurrentContext)
	}
}

func TestPathHonoursFlagAndKUBECONFIG(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	t.Setenv("KUBECONFIG", first+string(os.PathListSeparator)+second)
	if got := Path(""); got != first {
		t.Errorf("Path with KUBECONFIG = %q, want its first file %q", got, first)
	}
	if got := Path("/x/flag"); got != "/x/flag" {
		t.Errorf("Path with --kubeconfig = %q", got)
	}
}
