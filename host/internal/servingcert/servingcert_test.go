package servingcert

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// logLines collects what Load logs.
type logLines []string

func (l *logLines) logf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

func mustLoad(t *testing.T, dir string, now time.Time) (*Identity, logLines) {
	t.Helper()
	var logs logLines
	id, err := load(dir, now, logs.logf)
	if err != nil {
		t.Fatal(err)
	}
	return id, logs
}

// A TLS client trusting only the identity's CA reaches a server with it at
// every name of Hosts.
func TestTheCAVerifiesTheServingCertificate(t *testing.T) {
	id, logs := mustLoad(t, t.TempDir(), time.Now())
	if len(logs) != 0 {
		t.Errorf("first start logged %q", logs)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(id.CAPEM) {
		t.Fatal("CAPEM holds no certificate")
	}
	l := serve(t, id)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	for _, name := range Hosts {
		c, err := tls.Dial("tcp", net.JoinHostPort("127.0.0.1", port), &tls.Config{RootCAs: roots, ServerName: name})
		if err != nil {
			t.Errorf("handshake as %s: %v", name, err)
			continue
		}
		if got := c.ConnectionState().NegotiatedProtocol; got != "" && got != "http/1.1" {
			t.Errorf("ALPN %q", got)
		}
		c.Close()
	}
	if _, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "example.com"}); err == nil {
		t.Error("the certificate is valid for example.com")
	}
	if _, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{ServerName: "localhost"}); err == nil {
		t.Error("a client trusting the system roots only accepts the certificate")
	}
}

func TestFilesAndModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	mustLoad(t, dir, time.Now())
	for name, want := range map[string]os.FileMode{CAFile: 0o644, caKey: 0o600, certFile: 0o644, certKey: 0o600} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, info.Mode().Perm(), want)
		}
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, want 0700", info.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestReusedOnASecondStart(t *testing.T) {
	dir := t.TempDir()
	first, _ := mustLoad(t, dir, time.Now())
	second, logs := mustLoad(t, dir, time.Now())
	if !bytes.Equal(first.CAPEM, second.CAPEM) || !bytes.Equal(first.Cert.Certificate[0], second.Cert.Certificate[0]) {
		t.Error("the second start made new certificates")
	}
	if len(logs) != 0 {
		t.Errorf("the second start logged %q", logs)
	}
}

// Past the serving certificate's end (less a day) a start makes a new one,
// signed by the same CA, so that kubeconfigs written before stay good.
func TestRegeneratedWhenExpired(t *testing.T) {
	dir := t.TempDir()
	first, _ := mustLoad(t, dir, time.Now())
	later := first.Cert.Leaf.NotAfter.Add(-time.Hour)
	second, logs := mustLoad(t, dir, later)
	if bytes.Equal(first.Cert.Certificate[0], second.Cert.Certificate[0]) {
		t.Fatal("an expiring serving certificate was kept")
	}
	if !bytes.Equal(first.CAPEM, second.CAPEM) {
		t.Error("the CA, still valid, was replaced")
	}
	if len(logs) != 1 || !strings.Contains(logs[0], certFile) || !strings.Contains(logs[0], "expires") {
		t.Errorf("logs = %q, want one line naming %s and its expiry", logs, certFile)
	}
	if !second.Cert.Leaf.NotAfter.After(later.Add(renewBefore)) {
		t.Errorf("the new certificate ends %v", second.Cert.Leaf.NotAfter)
	}
	// The CA's end makes both new.
	third, logs := mustLoad(t, dir, time.Now().Add(caValidity))
	if bytes.Equal(third.CAPEM, second.CAPEM) || len(logs) != 2 {
		t.Errorf("past the CA's end: new CA %v, logs %q", !bytes.Equal(third.CAPEM, second.CAPEM), logs)
	}
}

// A file that is damaged, mismatched or too open is never trusted: it is
// replaced, with a line saying why.
func TestBadFilesAreReplaced(t *testing.T) {
	other := t.TempDir()
	mustLoad(t, other, time.Now())
	for _, tc := range []struct {
		name     string
		spoil    func(dir string) error
		newCA    bool
		inTheLog string
	}{
		{"garbage certificate", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, certFile), []byte("not PEM"), 0o644)
		}, false, certFile},
		{"key of another CA", func(dir string) error {
			key, err := os.ReadFile(filepath.Join(other, caKey))
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, caKey), key, 0o600)
			}
			return err
		}, true, "does not match"},
		{"certificate of another CA", func(dir string) error {
			for _, name := range []string{certFile, certKey} {
				b, err := os.ReadFile(filepath.Join(other, name))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
					return err
				}
			}
			return nil
		}, false, "unknown authority"},
		{"key readable by all", func(dir string) error {
			return os.Chmod(filepath.Join(dir, certKey), 0o644)
		}, false, "readable by others"},
		{"key missing", func(dir string) error {
			return os.Remove(filepath.Join(dir, caKey))
		}, true, "incomplete pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first, _ := mustLoad(t, dir, time.Now())
			if err := tc.spoil(dir); err != nil {
				t.Fatal(err)
			}
			second, logs := mustLoad(t, dir, time.Now())
			if got := !bytes.Equal(first.CAPEM, second.CAPEM); got != tc.newCA {
				t.Errorf("new CA = %v, want %v", got, tc.newCA)
			}
			if bytes.Equal(first.Cert.Certificate[0], second.Cert.Certificate[0]) {
				t.Error("the serving certificate was kept")
			}
			if len(logs) == 0 || !strings.Contains(logs[0], tc.inTheLog) {
				t.Errorf("logs = %q, want a line with %q", logs, tc.inTheLog)
			}
			roots := x509.NewCertPool()
			roots.AppendCertsFromPEM(second.CAPEM)
			if _, err := second.Cert.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
				t.Errorf("after the repair: %v", err)
			}
			if _, logs := mustLoad(t, dir, time.Now()); len(logs) != 0 {
				t.Errorf("the start after the repair logged %q", logs)
			}
		})
	}
}

func TestNewNeedsNoFolder(t *testing.T) {
	id, err := New()
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(id.CAPEM)
	if _, err := id.Cert.Leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err != nil {
		t.Error(err)
	}
}

// The server takes the client certificate the CA signed, or none, and
// refuses one that another CA signed.
func TestClientCertificates(t *testing.T) {
	id, _ := mustLoad(t, t.TempDir(), time.Now())
	other, _ := mustLoad(t, t.TempDir(), time.Now())
	l := serve(t, id)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(id.CAPEM)
	handshake := func(certPEM, keyPEM []byte) error {
		cfg := &tls.Config{RootCAs: roots, ServerName: "localhost"}
		if certPEM != nil {
			cert, err := tls.X509KeyPair(certPEM, keyPEM)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Certificates = []tls.Certificate{cert}
		}
		c, err := tls.Dial("tcp", l.Addr().String(), cfg)
		if err != nil {
			return err
		}
		defer c.Close()
		b := make([]byte, 2)
		_, err = c.Read(b) // TLS 1.3 reports a refused client certificate here
		return err
	}
	if err := handshake(id.ClientCertPEM, id.ClientKeyPEM); err != nil {
		t.Errorf("with the identity's client certificate: %v", err)
	}
	if err := handshake(nil, nil); err != nil {
		t.Errorf("with no client certificate: %v", err)
	}
	if err := handshake(other.ClientCertPEM, other.ClientKeyPEM); err == nil {
		t.Error("a client certificate of another CA was taken")
	}
}

// serve listens on loopback with id's server configuration until the test
// ends; it writes "ok" on each connection whose handshake succeeds and
// closes it.
func serve(t *testing.T, id *Identity) net.Listener {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", id.ServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if c.(*tls.Conn).Handshake() == nil {
				c.Write([]byte("ok"))
			}
			c.Close()
		}
	}()
	return l
}
