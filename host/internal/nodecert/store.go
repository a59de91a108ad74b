package nodecert

import (
	"crypto/ecdsa"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// File is the file of the node's folder that holds its certificate and
// key, PEM-encoded, readable by its owner only (a kubelet's
// kubelet-client-current.pem).
const File = "node-client.pem"

// load reads the certificate kept in dir: nil without an error when there
// is none (or no dir); nil with an error saying why when the file is not a
// usable certificate of node at now.
func load(dir, node string, now time.Time) (*tls.Certificate, error) {
	if dir == "" {
		return nil, nil
	}
	path := filepath.Join(dir, File)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%s has mode %v, readable by others than its owner", path, info.Mode().Perm())
	}
	cert, err := tls.X509KeyPair(b, b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkCert(cert.Leaf, node, now); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &cert, nil
}

// save writes cert and its key into dir (nothing when dir is ""), whole
// or not at all: through a temporary file renamed over File.
func save(dir string, cert *tls.Certificate) error {
	if dir == "" {
		return nil
	}
	key, ok := cert.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return fmt.Errorf("node certificate: its key is not an ECDSA key")
	}
	data := append(certPEM(cert), pemKey(key)...)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("node certificate: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+File+"-*")
	if err != nil {
		return fmt.Errorf("node certificate: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o600)
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, File))
	}
	if err != nil {
		return fmt.Errorf("node certificate: %w", err)
	}
	return nil
}
