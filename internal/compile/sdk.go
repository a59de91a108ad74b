package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"

	csdk "github.com/kube32/kube32/sdk/c"
	k32 "github.com/kube32/kube32/sdk/go"
)

// SDK directories under the cache.
const (
	cSDKDir  = "sdk/c"
	goSDKDir = "sdk/go"
)

var (
	sdkHashOnce      sync.Once
	cSDKHash, goHash string
)

// sdkHashes returns the content hashes of the embedded C and Go SDKs: they
// go into every fingerprint, so a new kube32 with a new SDK rebuilds pods.
func sdkHashes() (c, g string) {
	sdkHashOnce.Do(func() {
		cSDKHash = hashFS(csdk.Headers)
		goHash = hashFS(k32.Source)
	})
	return cSDKHash, goHash
}

// SDKVersion is a short hash of the SDKs embedded in this binary.
func SDKVersion() string {
	c, g := sdkHashes()
	sum := sha256.Sum256([]byte(c + g))
	return hex.EncodeToString(sum[:6])
}

// hashFS hashes the names and contents of every file of fsys.
func hashFS(fsys fs.FS) string {
	h := sha256.New()
	var names []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		data, _ := fs.ReadFile(fsys, n)
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeSDK makes dir a copy of fsys, rewriting it only when the embedded SDK
// changed (a stamp file holds its hash), so that up-to-date Go builds keep
// their cache hits.
func writeSDK(dir string, fsys fs.FS, hash string) error {
	stamp := filepath.Join(dir, ".kube32-sdk")
	if b, err := os.ReadFile(stamp); err == nil && string(b) == hash {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("writing the SDK to %s: %w", dir, err)
	}
	return os.WriteFile(stamp, []byte(hash), 0o644)
}

// writeCSDK writes the C headers and returns the include directory.
func writeCSDK(cacheDir string) (string, error) {
	c, _ := sdkHashes()
	dir := filepath.Join(cacheDir, filepath.FromSlash(cSDKDir))
	return dir, writeSDK(dir, csdk.Headers, c)
}

// WriteGoSDK makes dir a copy of the Go SDK module embedded in this binary
// (github.com/kube32/kube32/sdk/go), rewriting it only when it differs.
func WriteGoSDK(dir string) error {
	_, g := sdkHashes()
	return writeSDK(dir, k32.Source, g)
}

// goSDK writes the job's Go SDK copy and returns its directory.
func goSDK(job Job) (string, error) {
	dir := job.GoSDKDir
	if dir == "" {
		dir = filepath.Join(job.CacheDir, filepath.FromSlash(goSDKDir))
	}
	return dir, WriteGoSDK(dir)
}
