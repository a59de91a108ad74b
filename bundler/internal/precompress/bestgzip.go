package precompress

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Release builds write the smallest .gz the machine can make: boards serve
// .gz only, from flash, so every byte counts. compress/gzip at its best
// level is always a candidate; zopfli and libdeflate-gzip -12, where
// installed, usually beat it by a few percent.

// MissingGzipTool is the warning of a release build with neither zopfli
// nor libdeflate-gzip installed.
const MissingGzipTool = "install zopfli or libdeflate-tools for smaller .gz"

// gzipEncoder is a command that writes the gzip of the file named last on
// its command line to standard output.
type gzipEncoder struct {
	tool string
	args []string
}

var gzipEncoders = []gzipEncoder{
	{"zopfli", []string{"--i15", "-c"}},
	{"libdeflate-gzip", []string{"-12", "-c"}},
}

// installedEncoder is a gzipEncoder found on PATH.
type installedEncoder struct {
	gzipEncoder
	path string
}

func findGzipEncoders() []installedEncoder {
	var found []installedEncoder
	for _, e := range gzipEncoders {
		if p, err := exec.LookPath(e.tool); err == nil {
			found = append(found, installedEncoder{e, p})
		}
	}
	return found
}

// HaveGzipTool reports whether a release build finds a gzip encoder better
// than compress/gzip.
func HaveGzipTool() bool { return len(findGzipEncoders()) > 0 }

// fingerprintProbe is compressed by each encoder for GzipFingerprint: what
// an encoder makes of it changes when its version changes what it writes
// (zopfli has no --version).
var fingerprintProbe = []byte(strings.Repeat("<li class=\"item\">kube32 release probe</li>\n", 64))

var (
	fingerprintMu sync.Mutex
	fingerprints  = map[string]string{}
)

// GzipFingerprint names the encoders a release build of bundles uses, each
// with its path and a hash of its output on a fixed probe, so that
// installing, removing or upgrading one rebuilds the bundles.
func GzipFingerprint() string {
	var parts []string
	for _, e := range findGzipEncoders() {
		parts = append(parts, e.tool+" "+e.path+" "+e.probe())
	}
	return strings.Join(parts, "; ")
}

// probe hashes the encoder's output on fingerprintProbe, cached per
// process; a failing encoder has the fingerprint "failed" (and fails the
// build that uses it).
func (e installedEncoder) probe() string {
	fingerprintMu.Lock()
	defer fingerprintMu.Unlock()
	key := e.tool + " " + e.path
	if fp, ok := fingerprints[key]; ok {
		return fp
	}
	fp := "failed"
	if gz, err := e.encodeData(fingerprintProbe); err == nil {
		sum := sha256.Sum256(gz)
		fp = hex.EncodeToString(sum[:8])
		fingerprints[key] = fp
	}
	return fp
}

// encodeData writes data to a temporary file for the encoder, which reads
// only files.
func (e installedEncoder) encodeData(data []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "kube32-gzip-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "probe")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	return e.encode(path, data)
}

// encode runs the encoder on the file at path, whose content is data, and
// returns its gzip only when that decodes back to data.
func (e installedEncoder) encode(path string, data []byte) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command(e.path, append(append([]string{}, e.args...), path)...)
	cmd.Stderr = &stderr
	gz, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", e.tool, err, strings.TrimSpace(stderr.String()))
	}
	if err := sameGzip(gz, data); err != nil {
		return nil, fmt.Errorf("%s: %w", e.tool, err)
	}
	clearMTime(gz)
	return gz, nil
}

// sameGzip checks that gz is one gzip member that decodes to data, as
// net/http's clients and browsers decode it.
func sameGzip(gz, data []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return fmt.Errorf("not a gzip: %w", err)
	}
	zr.Multistream(false)
	plain, err := io.ReadAll(zr)
	if err != nil {
		return fmt.Errorf("not a valid gzip: %w", err)
	}
	if !bytes.Equal(plain, data) {
		return fmt.Errorf("its gzip does not decode to the file")
	}
	return nil
}

// clearMTime zeroes the modification time of a gzip header (RFC 1952),
// which an encoder may copy from the file, so that the output depends only
// on the content. A header with a CRC of its own is left alone.
func clearMTime(gz []byte) {
	const flagHCRC = 1 << 1
	if len(gz) >= 8 && gz[3]&flagHCRC == 0 {
		copy(gz[4:8], []byte{0, 0, 0, 0})
	}
}

// BestGzip returns the smallest gzip of data (the content of the file at
// path) among compress/gzip's and those of the installed encoders, and
// compress/gzip's for comparison. An encoder that fails, or writes a gzip
// that does not decode to data, is an error naming it: the build never
// ships a .gz it has not decoded. On a tie compress/gzip's wins.
func BestGzip(path string, data []byte) (best, plain []byte, err error) {
	plain, err = Gzip(data)
	if err != nil {
		return nil, nil, err
	}
	best = plain
	for _, e := range findGzipEncoders() {
		gz, err := e.encode(path, data)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(gz) < len(best) {
			best = gz
		}
	}
	return best, plain, nil
}
