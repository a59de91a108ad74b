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
	"oras.land/oras-go/v2/registry/remote"

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

// artifact is an image manifest and the blobs it refers to, built from
// content alone: the same content is always the same manifest digest.
type artifact struct {
	manifest []byte
	desc     ocispec.Descriptor // the manifest's
	blobs    []blob
}

type blob struct {
	desc ocispec.Descriptor
	data []byte
}

// moduleArtifact is module as a wasm artifact: an image manifest, the
// wasm config, one application/wasm layer.
func moduleArtifact(module []byte) artifact {
	layer := content.NewDescriptorFromBytes(images.LayerMediaType, module)
	cfg, _ := json.Marshal(config{Architecture: "wasm", OS: "wasip1", LayerDigests: []string{layer.Digest.String()}})
	cfgDesc := content.NewDescriptorFromBytes(images.ConfigMediaType, cfg)
	return newArtifact(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfgDesc,
		Layers:    []ocispec.Descriptor{layer},
	}, blob{layer, module}, blob{cfgDesc, cfg})
}

func newArtifact(m ocispec.Manifest, blobs ...blob) artifact {
	manifest, _ := json.Marshal(m)
	return artifact{manifest: manifest, desc: content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, manifest), blobs: blobs}
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
	a := moduleArtifact(module)
	if err := a.push(ctx, repository(r, plainHTTP), r); err != nil {
		return "", err
	}
	return a.desc.Digest.String(), nil
}

// push writes the artifact's blobs the registry does not hold yet, then
// its manifest, tagged r.Reference.
func (a artifact) push(ctx context.Context, repo *remote.Repository, r registry.Reference) error {
	for _, b := range a.blobs {
		if err := pushBlob(ctx, repo.Blobs(), b.desc, b.data); err != nil {
			return fmt.Errorf("push %s: %w", r, err)
		}
	}
	if err := repo.PushReference(ctx, a.desc, bytes.NewReader(a.manifest), r.Reference); err != nil {
		return fmt.Errorf("push %s: manifest: %w", r, termtext.Error(err))
	}
	return nil
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
