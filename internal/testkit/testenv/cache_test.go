package testenv

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var wasmModule = []byte("\x00asm\x01\x00\x00\x00")

// counter is a build that counts its runs.
type counter struct {
	mu   sync.Mutex
	runs int
	out  []byte
}

func (c *counter) build() ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs++
	return c.out, nil
}

func TestFixtureCacheBuildsOnceForEveryProcess(t *testing.T) {
	dir := t.TempDir()
	b := &counter{out: wasmModule}
	for range 3 { // three test processes, each with its own memory
		got, err := newFixtureCache(dir).get("ab12", IsWasm, b.build)
		if err != nil || !bytes.Equal(got, wasmModule) {
			t.Fatalf("get = %q, %v", got, err)
		}
	}
	if b.runs != 1 {
		t.Errorf("built %d times, want once", b.runs)
	}
}

func TestFixtureCacheRebuildsACorruptEntry(t *testing.T) {
	for name, corrupt := range map[string]func([]byte) []byte{
		"truncated":       func(b []byte) []byte { return b[:len(b)-1] },
		"a changed byte":  func(b []byte) []byte { b[len(b)-1] ^= 1; return b },
		"no magic":        func(b []byte) []byte { return b[1:] },
		"empty":           func([]byte) []byte { return nil },
		"a half header":   func(b []byte) []byte { return b[:len(cacheMagic)+10] },
		"another payload": func([]byte) []byte { return append([]byte(cacheMagic), bytes.Repeat([]byte("0"), 64)...) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			b := &counter{out: wasmModule}
			if _, err := newFixtureCache(dir).get("cd34", IsWasm, b.build); err != nil {
				t.Fatal(err)
			}
			path := newFixtureCache(dir).path("cd34")
			entry, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, corrupt(bytes.Clone(entry)), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := newFixtureCache(dir).get("cd34", IsWasm, b.build)
			if err != nil || !bytes.Equal(got, wasmModule) {
				t.Fatalf("get = %q, %v", got, err)
			}
			if b.runs != 2 {
				t.Errorf("built %d times, want twice (the corrupt entry rebuilt)", b.runs)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, entry) {
				t.Errorf("the entry was not rewritten whole:\n%q\nwant\n%q", again, entry)
			}
		})
	}
}

func TestFixtureCacheRebuildsAnEntryItsCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	notWasm := &counter{out: []byte("not a module")}
	if _, err := newFixtureCache(dir).get("ef56", func([]byte) bool { return true }, notWasm.build); err != nil {
		t.Fatal(err)
	}
	b := &counter{out: wasmModule}
	got, err := newFixtureCache(dir).get("ef56", IsWasm, b.build)
	if err != nil || !bytes.Equal(got, wasmModule) || b.runs != 1 {
		t.Fatalf("get = %q, %v after %d builds; want the module, built once", got, err, b.runs)
	}
}

func TestFixtureCacheRefusesAnInvalidBuild(t *testing.T) {
	dir := t.TempDir()
	b := &counter{out: []byte("not a module")}
	if _, err := newFixtureCache(dir).get("0a0b", IsWasm, b.build); err == nil {
		t.Fatal("a build that is no module was accepted")
	}
	if _, err := os.Stat(newFixtureCache(dir).path("0a0b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an invalid build was stored: %v", err)
	}
}

func TestFixtureCacheKeepsNoTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for range 8 { // processes building the same key at once
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := newFixtureCache(dir).get("1c2d", IsWasm, (&counter{out: wasmModule}).build); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	files, _ := filepath.Glob(filepath.Join(dir, "1c", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "1c2d" {
		t.Errorf("cache holds %q, want the one entry", files)
	}
}

func TestFixtureCacheOffByEnv(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if CacheDir() == "" {
		t.Fatal("the cache is off without " + CacheEnv)
	}
	t.Setenv(CacheEnv, "off")
	if d := CacheDir(); d != "" {
		t.Errorf("%s=off: cache dir %q, want none", CacheEnv, d)
	}
}

func TestKeyNamesEveryInput(t *testing.T) {
	sum := func(pairs ...string) string {
		k := NewKey(t, "x")
		for i := 0; i+1 < len(pairs); i += 2 {
			k.Add(pairs[i], pairs[i+1])
		}
		return k.Sum()
	}
	if sum("a", "bc") == sum("ab", "c") {
		t.Error("inputs run into each other")
	}
	if sum("a", "1") == sum("a", "2") {
		t.Error("a value is not in the key")
	}
	dir := t.TempDir()
	WriteFiles(t, dir, map[string]string{"k.h": "#define N 1\n", "main.c": "int x;\n"})
	before := NewKey(t, "x").Tree(dir, nil).Sum()
	WriteFiles(t, dir, map[string]string{"k.h": "#define N 2\n"})
	if NewKey(t, "x").Tree(dir, nil).Sum() == before {
		t.Error("a file's change is not in the key")
	}
}
