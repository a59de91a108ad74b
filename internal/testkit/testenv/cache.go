package testenv

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi/wasmbin"
)

// CacheEnv names the variable that turns the fixture cache off:
// KUBE32_TEST_CACHE=off builds every fixture in every test process.
const CacheEnv = "KUBE32_TEST_CACHE"

// The fixture cache keeps the modules the tests compile (C and Go test
// pods, examples built by the bundler) under the user's cache directory,
// named by the hash of everything that decides their bytes, so that the
// test processes of one `go test ./...` run, and the runs after it, build
// each of them once. Real compilers still build every fixture whose inputs
// changed: the cache only skips rebuilding equal inputs.

// cacheMagic starts every entry, before the payload's SHA-256 in hex.
const cacheMagic = "kube32-testfixture/1\n"

// cacheMaxAge is how long an entry nobody reads stays.
const cacheMaxAge = 30 * 24 * time.Hour

// CacheDir returns the fixture cache's directory, "" when it is off (by
// CacheEnv or for want of a user cache directory).
func CacheDir() string {
	if v := os.Getenv(CacheEnv); v == "off" || v == "0" || v == "false" {
		return ""
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "kube32", "testfixtures")
}

// ModuleRoot is the directory of the kube32 module (this checkout).
var ModuleRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}()

// Key hashes the inputs of a fixture. Every field is written with its name,
// so that inputs cannot run into each other.
type Key struct {
	t testing.TB
	h hash.Hash
}

// NewKey starts the key of a fixture of the given kind ("c", "go", …).
func NewKey(t testing.TB, kind string) *Key {
	k := &Key{t: t, h: sha256.New()}
	return k.Add("kind", kind).Add("host", runtime.GOOS+"/"+runtime.GOARCH)
}

// Add adds the input name with its value.
func (k *Key) Add(name, value string) *Key {
	fmt.Fprintf(k.h, "%s=%q\n", name, value)
	return k
}

// File adds the bytes of the file at path.
func (k *Key) File(path string) *Key {
	k.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		k.t.Fatalf("fixture cache: %v", err)
	}
	fmt.Fprintf(k.h, "file %q %d\n", filepath.Base(path), len(b))
	k.h.Write(b)
	return k
}

// Tree adds every file under dir that keep accepts (given its slash path
// relative to dir and whether it is a directory; nil keeps all), in
// lexical order, with its relative path and bytes. Hidden files and
// directories are left out.
func (k *Key) Tree(dir string, keep func(rel string, isDir bool) bool) *Key {
	k.t.Helper()
	fmt.Fprintf(k.h, "tree %q\n", filepath.Base(dir))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		skip := strings.HasPrefix(d.Name(), ".") || (keep != nil && !keep(rel, d.IsDir()))
		switch {
		case skip && d.IsDir():
			return filepath.SkipDir
		case skip || d.IsDir() || !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(k.h, "%q %d\n", rel, len(b))
		k.h.Write(b)
		return nil
	})
	if err != nil {
		k.t.Fatalf("fixture cache: %v", err)
	}
	return k
}

var (
	toolIDMu sync.Mutex
	toolIDs  = map[string]string{}
)

// Tool adds the identity of the program at path: its resolved path, size
// and modification time, and what `path args…` prints (its version),
// found once per process.
func (k *Key) Tool(path string, args ...string) *Key {
	k.t.Helper()
	id := path + " " + strings.Join(args, " ")
	toolIDMu.Lock()
	defer toolIDMu.Unlock()
	v, ok := toolIDs[id]
	if !ok {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			k.t.Fatalf("fixture cache: %v", err)
		}
		st, err := os.Stat(real)
		if err != nil {
			k.t.Fatalf("fixture cache: %v", err)
		}
		out, err := exec.Command(path, args...).Output()
		if err != nil {
			k.t.Fatalf("fixture cache: %s %s: %v", path, strings.Join(args, " "), err)
		}
		v = fmt.Sprintf("%s %d %d\n%s", real, st.Size(), st.ModTime().UnixNano(), out)
		toolIDs[id] = v
	}
	return k.Add("tool "+id, v)
}

// Sum is the key's hex digest.
func (k *Key) Sum() string { return hex.EncodeToString(k.h.Sum(nil)) }

// fixtureCache is the cache as one process sees it: the entries in dir,
// and those it already read or built in memory.
type fixtureCache struct {
	dir   string // "" keeps entries in memory only
	mu    sync.Mutex
	locks map[string]*sync.Mutex
	memo  map[string][]byte
	prune sync.Once
}

var (
	processCacheMu sync.Mutex
	processCaches  = map[string]*fixtureCache{}
)

// Cached returns the fixture of key: from this process's memory, else from
// the cache directory when an entry there is whole and valid accepts it,
// else what build makes, which it stores for the other test processes.
// Entries are written to a temporary file and renamed into place, so a
// reader never sees half an entry; two processes building the same key at
// once both build, and the last rename wins with equal bytes.
func Cached(t testing.TB, key *Key, valid func([]byte) bool, build func() ([]byte, error)) []byte {
	t.Helper()
	dir := CacheDir()
	processCacheMu.Lock()
	c := processCaches[dir]
	if c == nil {
		c = newFixtureCache(dir)
		processCaches[dir] = c
	}
	processCacheMu.Unlock()
	b, err := c.get(key.Sum(), valid, build)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFixtureCache(dir string) *fixtureCache {
	return &fixtureCache{dir: dir, locks: map[string]*sync.Mutex{}, memo: map[string][]byte{}}
}

func (c *fixtureCache) get(sum string, valid func([]byte) bool, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	lock := c.locks[sum]
	if lock == nil {
		lock = new(sync.Mutex)
		c.locks[sum] = lock
	}
	c.mu.Unlock()
	lock.Lock() // one build per key per process
	defer lock.Unlock()

	c.mu.Lock()
	b, ok := c.memo[sum]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	var path string
	if c.dir != "" {
		c.prune.Do(func() { prune(c.dir) })
		path = c.path(sum)
		if b, ok := readEntry(path); ok && valid(b) {
			return c.remember(sum, b), nil
		}
	}
	b, err := build()
	if err != nil {
		return nil, err
	}
	if !valid(b) {
		return nil, fmt.Errorf("fixture cache: the build made %d bytes that are not a valid fixture", len(b))
	}
	if path != "" {
		// Not stored (a full disk, a read-only home): the next process
		// builds again, which is slower but as right.
		writeEntry(path, b)
	}
	return c.remember(sum, b), nil
}

func (c *fixtureCache) path(sum string) string { return filepath.Join(c.dir, sum[:2], sum) }

func (c *fixtureCache) remember(sum string, b []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.memo[sum] = b
	return b
}

// readEntry returns the payload of the entry at path when it is whole: the
// magic, then the payload's SHA-256, then the payload.
func readEntry(path string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(b, []byte(cacheMagic))
	if !ok || len(rest) < 65 || rest[64] != '\n' {
		return nil, false
	}
	payload := rest[65:]
	sum := sha256.Sum256(payload)
	if hex.EncodeToString(sum[:]) != string(rest[:64]) {
		return nil, false
	}
	// Entries read are kept from pruning (a day's precision is enough).
	if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > 24*time.Hour {
		now := time.Now()
		os.Chtimes(path, now, now)
	}
	return payload, true
}

func writeEntry(path string, payload []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(payload)
	_, err = f.WriteString(cacheMagic + hex.EncodeToString(sum[:]) + "\n")
	if err == nil {
		_, err = f.Write(payload)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// prune removes the entries nobody read for cacheMaxAge, and the
// temporary files killed processes left as long ago.
func prune(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && time.Since(info.ModTime()) > cacheMaxAge {
			os.Remove(p)
		}
		return nil
	})
}

// IsWasm reports whether b starts as a WebAssembly binary module does.
func IsWasm(b []byte) bool {
	return bytes.HasPrefix(b, []byte(wasmbin.Header))
}
