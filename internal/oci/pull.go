package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/singleflight"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
)

// maxManifestBytes bounds a manifest read from a registry (oras-go's own
// default for metadata).
const maxManifestBytes = 4 << 20

// Image is a pulled module: its bytes, verified against Layer, and the
// digest of the manifest it came from (the image's ID).
type Image struct {
	Module   []byte
	Manifest digest.Digest
	Layer    digest.Digest
}

// Puller pulls the modules (and StaticBundles, PullBundle) of OCI
// references once and keeps them: in
// memory for the process, and by digest under Dir ("" keeps none on disk),
// so that a node that restarts runs its images without the registry. Its
// methods are safe for concurrent use.
type Puller struct {
	Dir string

	mu      sync.Mutex
	pulled  map[string]Image  // by reference
	bundles map[string]Bundle // by reference
	// failedBundles are the bundle pulls that failed last, by reference.
	failedBundles map[string]pullFailure
	// flights makes the pods of a node that want one reference at once
	// share one pull.
	flights singleflight.Group
}

// Cached returns the image of ref that this process pulled, or that the
// disk cache holds (its bytes checked against their digest again).
func (p *Puller) Cached(ref string) (Image, bool) {
	p.mu.Lock()
	img, ok := p.pulled[ref]
	p.mu.Unlock()
	if ok {
		return img, true
	}
	img, ok = p.readCache(ref)
	if ok {
		p.remember(ref, img)
	}
	return img, ok
}

// Pull fetches ref's manifest and module from its registry, checks that it
// is a wasm artifact and that every byte matches its digest, and caches it.
// Errors name the reference. Pulls of one reference at once are one pull.
func (p *Puller) Pull(ctx context.Context, ref string) (Image, error) {
	img, err, _ := p.flights.Do(ref, func() (any, error) { return p.pull(ctx, ref) })
	if err != nil {
		return Image{}, err
	}
	return img.(Image), nil
}

func (p *Puller) pull(ctx context.Context, ref string) (Image, error) {
	raw, manDesc, repo, err := fetchManifest(ctx, ref)
	if err != nil {
		return Image{}, err
	}
	layer, err := wasmLayer(raw, manDesc.MediaType)
	if err != nil {
		return Image{}, fmt.Errorf("pull %s: %w", ref, err)
	}
	if layer.Size > abi.OCIModuleBytesMax {
		return Image{}, fmt.Errorf("pull %s: module layer of %d bytes is larger than %d (OCIModuleBytesMax)", ref, layer.Size, abi.OCIModuleBytesMax)
	}
	module, err := content.FetchAll(ctx, repo.Blobs(), layer)
	if err != nil {
		return Image{}, fmt.Errorf("pull %s: module layer %s: %w", ref, layer.Digest, err)
	}
	img := Image{Module: module, Manifest: manDesc.Digest, Layer: layer.Digest}
	p.writeCached(modulesRefs, ref, img.Manifest, img.Layer, img.Module)
	p.remember(ref, img)
	return img, nil
}

// fetchManifest fetches ref's manifest, checked against its digest, and
// returns it with its descriptor and the repository to fetch blobs from.
func fetchManifest(ctx context.Context, ref string) ([]byte, ocispec.Descriptor, *remote.Repository, error) {
	r, err := images.ParseOCI(ref)
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, err
	}
	repo := repository(r, false)
	manDesc, rc, err := repo.FetchReference(ctx, r.Reference)
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	defer rc.Close()
	if manDesc.Size > maxManifestBytes {
		return nil, ocispec.Descriptor{}, nil, fmt.Errorf("pull %s: manifest of %d bytes is larger than %d", ref, manDesc.Size, maxManifestBytes)
	}
	raw, err := content.ReadAll(rc, manDesc)
	if err != nil {
		return nil, ocispec.Descriptor{}, nil, fmt.Errorf("pull %s: manifest: %w", ref, err)
	}
	return raw, manDesc, repo, nil
}

// wasmLayer returns the module layer of a wasm artifact's manifest, or why
// the manifest is not one.
func wasmLayer(raw []byte, mediaType string) (ocispec.Descriptor, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("manifest: %w", err)
	}
	if mediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, fmt.Errorf("manifest of media type %q is not an OCI image manifest (%s): not a wasm image", mediaType, ocispec.MediaTypeImageManifest)
	}
	if m.Config.MediaType != images.ConfigMediaType {
		return ocispec.Descriptor{}, fmt.Errorf("config of media type %q, want %q: not a wasm image (push it with kube32 push)", m.Config.MediaType, images.ConfigMediaType)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != images.LayerMediaType {
		return ocispec.Descriptor{}, fmt.Errorf("a wasm image has one layer of media type %q; this one has %d layers", images.LayerMediaType, len(m.Layers))
	}
	return m.Layers[0], nil
}

func (p *Puller) remember(ref string, img Image) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pulled == nil {
		p.pulled = map[string]Image{}
	}
	p.pulled[ref] = img
}

// The disk cache: layers under blobs/<algorithm>/<hex>, and for each
// reference (named by its own digest) a line "<manifest> <layer>" under
// refsDir: modules' under refs/, bundles' under bundle-refs/ (bundle.go),
// so that a reference pulled as one is never read as the other.
const modulesRefs = "refs"

func (p *Puller) refPath(refsDir, ref string) string {
	return filepath.Join(p.Dir, refsDir, digest.FromString(ref).Encoded())
}

func (p *Puller) blobPath(d digest.Digest) string {
	return filepath.Join(p.Dir, "blobs", d.Algorithm().String(), d.Encoded())
}

// readCached returns the manifest and layer kept for ref under refsDir,
// with the layer's bytes checked against its digest; false when there is
// none, or it is damaged (then it is pulled again).
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
	return man, layer, data, true
}

// writeCached keeps the layer data of ref under refsDir; a cache that
// cannot be written costs a pull later, nothing else.
func (p *Puller) writeCached(refsDir, ref string, man, layer digest.Digest, data []byte) {
	if p.Dir == "" {
		return
	}
	if writeFile(p.blobPath(layer), data) == nil {
		_ = writeFile(p.refPath(refsDir, ref), []byte(man.String()+" "+layer.String()+"\n"))
	}
}

func (p *Puller) readCache(ref string) (Image, bool) {
	man, layer, module, ok := p.readCached(modulesRefs, ref)
	if !ok {
		return Image{}, false
	}
	return Image{Module: module, Manifest: man, Layer: layer}, true
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
