package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
)

// PushBundle writes the built bundle in the folder dir to the registry
// reference ref as a bundle artifact (docs/oci.md, "Bundles"): an OCI 1.1
// image manifest of artifactType images.BundleArtifactType, the empty
// config and one layer, the tar of BundleLayer. It returns the manifest's
// digest, the same for the same files wherever and whenever they were
// written.
func PushBundle(ctx context.Context, dir, ref string, plainHTTP bool) (string, error) {
	if _, err := pushReference(ref); err != nil {
		return "", err
	}
	layer, err := BundleLayer(dir)
	if err != nil {
		return "", err
	}
	return pushBundleLayer(ctx, layer, ref, plainHTTP)
}

// pushBundleLayer pushes layer, the tar of a bundle, as a bundle artifact.
func pushBundleLayer(ctx context.Context, layer []byte, ref string, plainHTTP bool) (string, error) {
	r, err := pushReference(ref)
	if err != nil {
		return "", err
	}
	a := bundleArtifact(layer)
	if err := a.push(ctx, repository(r, plainHTTP), r); err != nil {
		return "", err
	}
	return a.desc.Digest.String(), nil
}

// bundleArtifact is layer, the tar of a bundle, as a bundle artifact: an
// OCI 1.1 image manifest of artifactType images.BundleArtifactType, the
// empty config and the layer.
func bundleArtifact(layer []byte) artifact {
	layerDesc := content.NewDescriptorFromBytes(images.BundleLayerMediaType, layer)
	cfgDesc := ocispec.DescriptorEmptyJSON
	return newArtifact(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: images.BundleArtifactType,
		Config:       cfgDesc,
		Layers:       []ocispec.Descriptor{layerDesc},
	}, blob{layerDesc, layer}, blob{cfgDesc, cfgDesc.Data})
}

// Bundle is a pulled StaticBundle: its files, verified against Layer, and
// the digest of the manifest it came from.
type Bundle struct {
	Files    fs.FS
	Manifest digest.Digest
	Layer    digest.Digest
}

// PullBundle returns the bundle artifact of ref: the one the disk cache
// holds, else pulled from its registry, its manifest and layer checked
// against their digests, the layer unpacked by the rules of unpackBundle,
// then cached. As for modules, a reference pulled once is not pulled again
// while the disk cache keeps it (docs/oci.md); unlike modules, the Puller
// keeps no bundle in memory: the caller keeps what it serves. Errors name
// the reference.
func (p *Puller) PullBundle(ctx context.Context, ref string) (Bundle, error) {
	v, err, _ := p.flights.Do("bundle "+ref, func() (any, error) {
		if b, ok := p.readBundleCache(ref); ok {
			return b, nil
		}
		return p.pullBundle(ctx, ref)
	})
	if err != nil {
		return Bundle{}, err
	}
	return v.(Bundle), nil
}

func (p *Puller) pullBundle(ctx context.Context, ref string) (Bundle, error) {
	raw, manDesc, repo, err := fetchManifest(ctx, ref)
	if err != nil {
		return Bundle{}, err
	}
	layer, err := bundleLayer(raw, manDesc.MediaType)
	if err != nil {
		return Bundle{}, fmt.Errorf("pull %s: %w", ref, err)
	}
	if layer.Size > abi.OCIBundleBytesMax {
		return Bundle{}, fmt.Errorf("pull %s: bundle layer of %d bytes is larger than %d (OCIBundleBytesMax)", ref, layer.Size, int64(abi.OCIBundleBytesMax))
	}
	data, err := content.FetchAll(ctx, repo.Blobs(), layer)
	if err != nil {
		return Bundle{}, fmt.Errorf("pull %s: bundle layer %s: %w", ref, layer.Digest, err)
	}
	files, err := unpackBundle(data)
	if err != nil {
		return Bundle{}, fmt.Errorf("pull %s: %w", ref, err)
	}
	p.writeCached(bundlesRefs, ref, manDesc.Digest, layer.Digest, data)
	return Bundle{Files: memFS(files), Manifest: manDesc.Digest, Layer: layer.Digest}, nil
}

// bundleLayer returns the layer of a bundle artifact's manifest, or why
// the manifest is not one.
func bundleLayer(raw []byte, mediaType string) (ocispec.Descriptor, error) {
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("manifest: %w", err)
	}
	if mediaType != ocispec.MediaTypeImageManifest || m.ArtifactType != images.BundleArtifactType {
		return ocispec.Descriptor{}, fmt.Errorf("manifest of media type %q and artifactType %q, want %q and %q: not a StaticBundle (push it with kube32 push)", mediaType, m.ArtifactType, ocispec.MediaTypeImageManifest, images.BundleArtifactType)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != images.BundleLayerMediaType {
		return ocispec.Descriptor{}, fmt.Errorf("a StaticBundle has one layer of media type %q; this one has %d layers", images.BundleLayerMediaType, len(m.Layers))
	}
	return m.Layers[0], nil
}

// bundlesRefs holds the bundles' lines of the disk cache (pull.go), apart
// from the modules'.
const bundlesRefs = "bundle-refs"

func (p *Puller) readBundleCache(ref string) (Bundle, bool) {
	man, layer, data, ok := p.readCached(bundlesRefs, ref)
	if !ok {
		return Bundle{}, false
	}
	files, err := unpackBundle(data)
	if err != nil {
		return Bundle{}, false
	}
	return Bundle{Files: memFS(files), Manifest: man, Layer: layer}, true
}

// memFS serves unpacked files; fstest.MapFS is the standard library's
// in-memory file system, which makes up the folders of the paths.
func memFS(files map[string][]byte) fs.FS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o444}
	}
	return m
}
