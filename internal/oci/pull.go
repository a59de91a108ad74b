package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"weak"

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
// references and keeps them by digest under Dir ("" keeps none on disk),
// so that a node that restarts runs its images without the registry; the
// disk cache holds at most CacheBytes of layers, the least recently used
// going first (cache.go). In memory it keeps a module only while its
// *Image is held: the pods of one reference share one copy, and a module
// that no pod runs any more leaves memory. Its methods are safe for
// concurrent use.
type Puller struct {
	Dir string
	// CacheBytes bounds the layers kept under Dir; 0 means
	// abi.OCICacheBytesMax.
	CacheBytes int64

	mu sync.Mutex
	// modules are the Images given out, by reference, held weakly.
	modules map[string]weak.Pointer[Image]
	// flights makes the pods of a node that want one reference at once
	// share one pull.
	flights singleflight.Group
	// pruning makes one prune of the disk cache at a time.
	pruning sync.Mutex
}

// Cached returns the image of ref that something in this process still
// holds, or that the disk cache holds (its bytes checked against their
// digest again).
func (p *Puller) Cached(ref string) (*Image, bool) {
	p.mu.Lock()
	img := p.modules[ref].Value()
	p.mu.Unlock()
	if img != nil {
		return img, true
	}
	man, layer, module, ok := p.readCached(modulesRefs, ref)
	if !ok {
		return nil, false
	}
	return p.remember(ref, &Image{Module: module, Manifest: man, Layer: layer}), true
}

// Pull fetches ref's manifest and module from its registry, checks that it
// is a wasm artifact and that every byte matches its digest, and caches it.
// Errors name the reference. Pulls of one reference at once are one pull.
func (p *Puller) Pull(ctx context.Context, ref string) (*Image, error) {
	img, err, _ := p.flights.Do(ref, func() (any, error) { return p.pull(ctx, ref) })
	if err != nil {
		return nil, err
	}
	return img.(*Image), nil
}

func (p *Puller) pull(ctx context.Context, ref string) (*Image, error) {
	raw, manDesc, repo, err := fetchManifest(ctx, ref)
	if err != nil {
		return nil, err
	}
	layer, err := wasmLayer(raw, manDesc.MediaType)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", ref, err)
	}
	if layer.Size > abi.OCIModuleBytesMax {
		return nil, fmt.Errorf("pull %s: module layer of %d bytes is larger than %d (OCIModuleBytesMax)", ref, layer.Size, abi.OCIModuleBytesMax)
	}
	module, err := content.FetchAll(ctx, repo.Blobs(), layer)
	if err != nil {
		return nil, fmt.Errorf("pull %s: module layer %s: %w", ref, layer.Digest, err)
	}
	p.writeCached(modulesRefs, ref, manDesc.Digest, layer.Digest, module)
	return p.remember(ref, &Image{Module: module, Manifest: manDesc.Digest, Layer: layer.Digest}), nil
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

// remember keeps a weak hold of img as ref's, so that Cached gives it
// again while anything holds it, and returns it.
func (p *Puller) remember(ref string, img *Image) *Image {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.modules == nil {
		p.modules = map[string]weak.Pointer[Image]{}
	}
	for r, w := range p.modules {
		if w.Value() == nil {
			delete(p.modules, r)
		}
	}
	if held := p.modules[ref].Value(); held != nil && held.Layer == img.Layer {
		return held // two readers of the disk cache at once: one copy
	}
	p.modules[ref] = weak.Make(img)
	return img
}
