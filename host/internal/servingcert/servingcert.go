// Package servingcert keeps the TLS identity of serve's HTTPS API endpoint:
// a CA and a serving certificate it signs for 127.0.0.1, ::1 and localhost,
// both ECDSA P-256. Load keeps them in a folder, made once and reused while
// they are valid; a file that is missing, unreadable, expired or does not
// match the others is replaced, and a bad one is replaced with a log line
// (docs/serve.md, "The API over HTTPS"). A client certificate the CA signs,
// made anew on each start, goes into the kubeconfig with the CA.
package servingcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// The files of a folder given to Load. The certificates are readable by
// all; the keys by their owner only.
const (
	CAFile   = "ca.crt"
	caKey    = "ca.key"
	certFile = "apiserver.crt"
	certKey  = "apiserver.key"
)

// How long what Load makes is valid, and how long before its end it is
// made anew, so that a serve never sees its certificate expire.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	certValidity = 365 * 24 * time.Hour
	renewBefore  = 24 * time.Hour
)

// Hosts are the names the serving certificate is valid for: the loopback
// addresses and name a client on the machine uses.
var Hosts = []string{"127.0.0.1", "::1", "localhost"}

// Identity is what the API server serves with and what its clients trust.
type Identity struct {
	// CAPEM is the CA certificate, PEM-encoded: a kubeconfig's
	// certificate-authority-data.
	CAPEM []byte
	// Cert is the serving certificate with its key.
	Cert tls.Certificate
	// ClientCertPEM and ClientKeyPEM are a client certificate the CA
	// signed and its key, for a kubeconfig's user: kubectl asks for a
	// username on a terminal when an HTTPS context names no credential,
	// and serve without --token has no token to give it.
	ClientCertPEM, ClientKeyPEM []byte

	ca *x509.Certificate
}

// ServerConfig is the TLS configuration of a server with the identity:
// TLS 1.2 and up, HTTP/1.1 (what kubectl's upgrades, watches and
// port-forward need), and a client certificate, when a client gives one,
// that the CA signed. Who may do what stays the bearer token's business.
func (id *Identity) ServerConfig() *tls.Config {
	clientCAs := x509.NewCertPool()
	clientCAs.AddCert(id.ca)
	return &tls.Config{Certificates: []tls.Certificate{id.Cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"},
		ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: clientCAs}
}

// identity completes an identity with a fresh client certificate.
func identity(ca, leaf *pair, now time.Time) (*Identity, error) {
	client, err := newPair(ca, now, clientCert)
	if err != nil {
		return nil, err
	}
	return &Identity{CAPEM: ca.certPEM, Cert: leaf.tls, ClientCertPEM: client.certPEM, ClientKeyPEM: client.keyPEM, ca: ca.cert}, nil
}

// New makes an identity in memory, for a cluster that keeps none.
func New() (*Identity, error) {
	now := time.Now()
	ca, err := newPair(nil, now, caCert)
	if err != nil {
		return nil, err
	}
	leaf, err := newPair(ca, now, serverCert)
	if err != nil {
		return nil, err
	}
	return identity(ca, leaf, now)
}

// Load returns the identity kept in dir, making the folder, the CA or the
// serving certificate where they are missing or no longer good; logf gets
// a line for each file replaced.
func Load(dir string, logf func(format string, args ...any)) (*Identity, error) {
	return load(dir, time.Now(), logf)
}

func load(dir string, now time.Time, logf func(string, ...any)) (*Identity, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("API certificates: %w", err)
	}
	ca, err := readPair(dir, CAFile, caKey)
	if err == nil {
		err = checkCA(ca, now)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			logf("API CA %s: %v; making a new one (clients must take the new certificate-authority-data)", filepath.Join(dir, CAFile), err)
		}
		if ca, err = newPair(nil, now, caCert); err != nil {
			return nil, err
		}
		if err := ca.write(dir, CAFile, caKey); err != nil {
			return nil, err
		}
	}
	leaf, err := readPair(dir, certFile, certKey)
	if err == nil {
		err = checkLeaf(leaf, ca, now)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			logf("API serving certificate %s: %v; making a new one", filepath.Join(dir, certFile), err)
		}
		if leaf, err = newPair(ca, now, serverCert); err != nil {
			return nil, err
		}
		if err := leaf.write(dir, certFile, certKey); err != nil {
			return nil, err
		}
	}
	return identity(ca, leaf, now)
}

// pair is a certificate and its key, parsed and as PEM.
type pair struct {
	cert            *x509.Certificate
	key             *ecdsa.PrivateKey
	tls             tls.Certificate
	certPEM, keyPEM []byte
}

// The kinds of certificate newPair makes.
const (
	caCert     = iota
	serverCert // for Hosts
	clientCert // of the kubeconfig's user
)

// newPair makes a certificate of kind and its key, signed by ca (by itself
// for the CA), valid from an hour before now (clocks differ a little). A
// serving certificate is for hosts, Hosts when none are given.
func newPair(ca *pair, now time.Time, kind int, hosts ...string) (*pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, NotBefore: now.Add(-time.Hour)}
	parent, signer := tmpl, key
	switch kind {
	case caCert:
		tmpl.Subject = pkix.Name{CommonName: "kube32 API CA"}
		tmpl.NotAfter = now.Add(caValidity)
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature
	case serverCert:
		tmpl.Subject = pkix.Name{CommonName: "kube32 API server"}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		if len(hosts) == 0 {
			hosts = Hosts
		}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	case clientCert:
		tmpl.Subject = pkix.Name{CommonName: "kube32"}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	if kind != caCert {
		tmpl.NotAfter = now.Add(certValidity)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return parsePair(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
}

// readPair reads a certificate and its key; an error wrapping
// fs.ErrNotExist means both are missing.
func readPair(dir, certName, keyName string) (*pair, error) {
	certPEM, certErr := os.ReadFile(filepath.Join(dir, certName))
	keyPEM, keyErr := os.ReadFile(filepath.Join(dir, keyName))
	switch {
	case errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist):
		return nil, certErr
	case certErr != nil:
		return nil, noLongerMissing(certErr)
	case keyErr != nil:
		return nil, noLongerMissing(keyErr)
	}
	if err := checkPrivate(filepath.Join(dir, keyName)); err != nil {
		return nil, err
	}
	return parsePair(certPEM, keyPEM)
}

// noLongerMissing turns "one file of a pair is missing" into a plain
// error: the pair is broken, not absent, and worth a log line.
func noLongerMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("incomplete pair: %v", err)
	}
	return err
}

// checkPrivate refuses a key that others than its owner may read: it may
// have been copied.
func checkPrivate(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("key %s has mode %v, readable by others than its owner", path, info.Mode().Perm())
	}
	return nil
}

func parsePair(certPEM, keyPEM []byte) (*pair, error) {
	kp, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	key, ok := kp.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("key is not an ECDSA key")
	}
	return &pair{cert: kp.Leaf, key: key, tls: kp, certPEM: certPEM, keyPEM: keyPEM}, nil
}

func checkCA(ca *pair, now time.Time) error {
	if !ca.cert.IsCA || ca.cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return fmt.Errorf("not a CA certificate")
	}
	return checkTime(ca.cert, now)
}

// checkLeaf checks that the serving certificate chains to ca for every
// name of Hosts and stays valid for a while.
func checkLeaf(leaf, ca *pair, now time.Time) error {
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	if _, err := leaf.cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now}); err != nil {
		return err
	}
	for _, h := range Hosts {
		if err := leaf.cert.VerifyHostname(h); err != nil {
			return err
		}
	}
	return checkTime(leaf.cert, now)
}

func checkTime(c *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(c.NotBefore):
		return fmt.Errorf("not valid before %s", c.NotBefore.Format(time.RFC3339))
	case now.Add(renewBefore).After(c.NotAfter):
		return fmt.Errorf("expires %s", c.NotAfter.Format(time.RFC3339))
	}
	return nil
}

// write writes the pair into dir, each file whole or not at all.
func (p *pair) write(dir, certName, keyName string) error {
	if err := writeFile(filepath.Join(dir, keyName), p.keyPEM, 0o600); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, certName), p.certPEM, 0o644)
}

// writeFile replaces path by a file of data and mode, through a temporary
// file renamed over it, so that a reader never sees half a file.
func writeFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("API certificates: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("API certificates: %w", err)
	}
	return nil
}
