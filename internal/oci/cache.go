package oci

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/kube32/kube32/abi"
)

// The disk cache: layers under blobs/<algorithm>/<hex>, and for each
// reference (named by its own digest) a line "<manifest> <layer>" under
// refsDir: modules' under refs/, bundles' under bundle-refs/ (bundle.go),
// so that a reference pulled as one is never read as the other. A layer's
// modification time is when it was last written or read: past the size
// limit, prune removes the least recently used layers first.
const modulesRefs = "refs"

func (p *Puller) refPath(refsDir, ref string) string {
	return filepath.Join(p.Dir, refsDir, digest.FromString(ref).Encoded())
}

func (p *Puller) blobPath(d digest.Digest) string {
	return filepath.Join(p.Dir, "blobs", d.Algorithm().String(), d.Encoded())
}

// readCached returns the manifest and layer kept for ref under refsDir,
// with the layer's bytes checked against its digest, and marks the layer
// used now; false when there is none, or it is damaged (then it is pulled
// again).
func (p *Puller) readCached(refsDir, ref string) (man, layer digest.Digest, data []byte, ok bool) {
	if p.Dir == "" {
		return "", "", nil, false
	}
	line, err := os.ReadFile(p.refPath(refsDir, ref))
	if err != nil {
		return "", "", nil, false
	}
	fields := strings.Fields(string(line))
	if len(fields) != 2 {
		return "", "", nil, false
	}
	man, layer = digest.Digest(fields[0]), digest.Digest(fields[1])
	if man.Validate() != nil || layer.Validate() != nil {
		return "", "", nil, false
	}
	data, err = os.ReadFile(p.blobPath(layer))
	if err != nil || layer.Algorithm().FromBytes(data) != layer {
		return "", "", nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p.blobPath(layer), now, now)
	return man, layer, data, true
}

// writeCached keeps the layer data of ref under refsDir, then prunes the
// cache to its limit; a cache that cannot be written costs a pull later,
// nothing else.
func (p *Puller) writeCached(refsDir, ref string, man, layer digest.Digest, data []byte) {
	if p.Dir == "" {
		return
	}
	if writeFile(p.blobPath(layer), data) == nil {
		_ = writeFile(p.refPath(refsDir, ref), []byte(man.String()+" "+layer.String()+"\n"))
	}
	p.prune(layer)
}

// cachedLayer is one layer file of the disk cache.
type cachedLayer struct {
	path string
	size int64
	used time.Time
}

// prune removes the least recently used layers until those left take at
// most CacheBytes, never keep (the layer just written), then the
// references whose layer is gone.
func (p *Puller) prune(keep digest.Digest) {
	p.pruning.Lock()
	defer p.pruning.Unlock()
	limit := p.CacheBytes
	if limit <= 0 {
		limit = abi.OCICacheBytesMax
	}
	var layers []cachedLayer
	var total int64
	_ = filepath.WalkDir(filepath.Join(p.Dir, "blobs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		total += info.Size()
		if path != p.blobPath(keep) {
			layers = append(layers, cachedLayer{path: path, size: info.Size(), used: info.ModTime()})
		}
		return nil
	})
	if total <= limit {
		return
	}
	slices.SortFunc(layers, func(a, b cachedLayer) int { return a.used.Compare(b.used) })
	for _, l := range layers {
		if total <= limit {
			break
		}
		if os.Remove(l.path) == nil {
			total -= l.size
		}
	}
	for _, refsDir := range []string{modulesRefs, bundlesRefs} {
		p.dropDanglingRefs(refsDir)
	}
}

// dropDanglingRefs removes the reference lines under refsDir whose layer
// is no longer in the cache.
func (p *Puller) dropDanglingRefs(refsDir string) {
	entries, _ := os.ReadDir(filepath.Join(p.Dir, refsDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			continue // being written
		}
		path := filepath.Join(p.Dir, refsDir, e.Name())
		line, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(line))
		if len(fields) == 2 && digest.Digest(fields[1]).Validate() == nil {
			if _, err := os.Stat(p.blobPath(digest.Digest(fields[1]))); err == nil {
				continue
			}
		}
		_ = os.Remove(path)
	}
}

// writeFile writes data to path whole or not at all, beside it first.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}
