package pod

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// cacheFiles maps each file under dir to its FileInfo.
func cacheFiles(t *testing.T, dir string) map[string]os.FileInfo {
	t.Helper()
	files := map[string]os.FileInfo{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		files[path] = info
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestDiskCacheIsReusedByASecondStart(t *testing.T) {
	module := onePage(t, "probe")
	dir := t.TempDir()
	startWithCache := func() {
		// A new cache object each time, as a second `kube32 serve` process would have.
		cache, err := NewDiskCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close(context.Background())
		p := New(Config{Namespace: "default", Name: "cached", Module: module, Cache: cache})
		defer p.Stop()
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}

	startWithCache()
	first := cacheFiles(t, dir)
	if len(first) == 0 {
		t.Fatal("the first start left the cache directory empty")
	}
	startWithCache()
	second := cacheFiles(t, dir)
	// wazero writes an entry (a new file, renamed into place) only on a miss;
	// a hit only reads. So the same files, untouched, mean a cache hit.
	if len(second) != len(first) {
		t.Fatalf("cache went from %d to %d files: the second start compiled again", len(first), len(second))
	}
	for path, info := range first {
		again, ok := second[path]
		if !ok || !os.SameFile(info, again) || !info.ModTime().Equal(again.ModTime()) {
			t.Errorf("cache entry %s was rewritten: the second start missed the cache", path)
		}
	}
}
