package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/termtext"
)

// config is the artifact's config in the CNCF wasm OCI layout. It holds no
// creation time, so that one module always pushes to one digest.
type config struct {
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

// Push writes module to the registry reference ref as a wasm artifact (an
// image manifest, the wasm config, one application/wasm layer) and returns
// the manifest's digest. Loopback registries are reached over plain HTTP,
// others over HTTPS unless plainHTTP is set.
func Push(ctx context.Context, module []byte, ref string, plainHTTP bool) (string, error) {
	r, err := pushReference(ref)
	if err != nil {
		return "", err
	}
	repo := repository(r, plainHTTP)
	layer := content.NewDescriptorFromBytes(images.LayerMediaType, module)
	cfg, _ := json.Marshal(config{Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layer.Digest.String()}})
	cfgDesc := content.NewDescriptorFromBytes(images.ConfigMediaType, cfg)
	manifest, _ := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfgDesc,
		Layers:    []ocispec.Descriptor{layer},
	})
	manDesc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifest)
	for _, blob := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{layer, module}, {cfgDesc, cfg}} {
		if err := pushBlob(ctx, repo.Blobs(), blob.desc, blob.data); err != nil {
			return "", fmt.Errorf("push %s: %w", ref, err)
		}
	}
	if err := repo.PushReference(ctx, manDesc, bytes.NewReader(manifest), r.Reference); err != nil {
		return "", fmt.Errorf("push %s: manifest: %w", ref, termtext.Error(err))
	}
	return manDesc.Digest.String(), nil
}

// pushBlob pushes a blob the registry does not hold yet. A registry's
// error, which `kube32 push` prints, is made one safe line (termtext).
func pushBlob(ctx context.Context, blobs content.Storage, desc ocispec.Descriptor, data []byte) error {
	if ok, err := blobs.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	if err := blobs.Push(ctx, desc, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("blob %s: %w", desc.Digest, termtext.Error(err))
	}
	return nil
}

// pushReference parses ref, which a push writes to: a tag, not a digest.
func pushReference(ref string) (registry.Reference, error) {
	r, err := images.ParseOCI(ref)
	if err != nil {
		return registry.Reference{}, err
	}
	if _, err := r.Digest(); err == nil {
		return registry.Reference{}, fmt.Errorf("image %q: push to a tag (REGISTRY/REPOSITORY:TAG), not a digest", ref)
	}
	return r, nil
}
