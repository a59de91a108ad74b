// Package testtls makes what tests of https:// calls need: a test CA, its
// PEM file (serve's --egress-ca), certificates it signs for loopback hosts,
// and HTTPS servers on 127.0.0.x with them.
package testtls

import (
	"cmp"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// CA is a test certificate authority.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA certificate, PEM-encoded.
	PEM []byte
}

// NewCA makes a CA valid from an hour ago for a day.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kube32 test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{Cert: cert, key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// WritePEM writes the CA certificate to a PEM file in a temporary folder
// and returns its path.
func (ca *CA) WritePEM(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, ca.PEM, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// KeyPEM is the CA's private key, PEM-encoded (PKCS #8): for a program
// that signs with the CA, such as kube-controller-manager's CSR signer.
func (ca *CA) KeyPEM(t testing.TB) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// Pool is a pool holding only the CA.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// Leaf is what a server certificate names and when it is valid.
type Leaf struct {
	// CommonName is the subject's name (a client's user name); "" for
	// "kube32 test host". Organizations are its groups.
	CommonName    string
	Organizations []string
	// Client makes it a client certificate instead of a server's.
	Client   bool
	DNSNames []string
	IPs      []string
	// NotBefore and NotAfter default to an hour ago and a day from now.
	NotBefore, NotAfter time.Time
}

// Issue signs a server certificate for l, or a client's (l.Client).
func (ca *CA) Issue(t testing.TB, l Leaf) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if l.NotBefore.IsZero() {
		l.NotBefore = time.Now().Add(-time.Hour)
	}
	if l.NotAfter.IsZero() {
		l.NotAfter = time.Now().Add(24 * time.Hour)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cmp.Or(l.CommonName, "kube32 test host"), Organization: l.Organizations},
		DNSNames:     l.DNSNames,
		NotBefore:    l.NotBefore,
		NotAfter:     l.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if l.Client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, ip := range l.IPs {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// Serve runs h over HTTPS on ip (a free port) with cert, speaking the
// TLS versions min through max (0: Go's defaults), until the test ends.
// It returns the server's host:port.
func Serve(t testing.TB, ip string, cert tls.Certificate, min, max uint16, h http.Handler) string {
	t.Helper()
	s := testhttp.Server(t, ip, h)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: min, MaxVersion: max}
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // failed handshakes are what tests want
	s.StartTLS()
	return s.Listener.Addr().String()
}
