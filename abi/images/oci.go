package images

import (
	"fmt"
	"strings"

	"oras.land/oras-go/v2/registry"
)

// The media types of a wasm module stored in an OCI registry, as the CNCF
// wasm OCI artifact layout writes them (docs/oci.md): an image manifest
// whose config has ConfigMediaType and whose one layer is the module.
const (
	LayerMediaType  = "application/wasm"
	ConfigMediaType = "application/vnd.wasm.config.v0+json"
)

// The media types of a StaticBundle stored in an OCI registry (docs/oci.md,
// "Bundles"): an OCI 1.1 artifact, an image manifest whose artifactType is
// BundleArtifactType, whose config is the empty descriptor
// (application/vnd.oci.empty.v1+json, "{}") and whose one layer is an
// uncompressed tar of the bundle's files (BundleLayerMediaType). The tar is
// not compressed again: most of a built bundle is .gz and .br already, and
// a plain tar is the same bytes whatever Go compresses with.
const (
	BundleArtifactType   = "application/vnd.kube32.bundle.v1"
	BundleLayerMediaType = "application/vnd.kube32.bundle.layer.v1.tar"
)

// IsWasmRef reports whether ref is written in the wasm:// scheme that the
// boards read (ParseImage), rather than as an OCI reference.
func IsWasmRef(ref string) bool { return strings.HasPrefix(ref, scheme) }

// IsOCI reports whether ref is an OCI reference a node pulls (ParseOCI
// accepts it) rather than a wasm:// one it reads from its image trees.
func IsOCI(ref string) bool {
	if IsWasmRef(ref) {
		return false
	}
	_, err := ParseOCI(ref)
	return err == nil
}

// ParseOCI parses an OCI reference REGISTRY/REPOSITORY[:TAG|@DIGEST] such
// as 127.0.0.1:5000/app/echo:v1; without a tag or digest it names the tag
// "latest", as Kubernetes does. It is the one rule for such references:
// admission checks Pods' images with it, `kube32 push` writes to it and the
// kubelet pulls from it.
func ParseOCI(ref string) (registry.Reference, error) {
	if strings.Contains(ref, "://") {
		return registry.Reference{}, fmt.Errorf("image %q: an OCI reference has no scheme (REGISTRY/REPOSITORY:TAG)", ref)
	}
	r, err := registry.ParseReference(ref)
	if err != nil {
		return registry.Reference{}, fmt.Errorf("image %q: not an OCI reference REGISTRY/REPOSITORY[:TAG|@DIGEST]: %v", ref, err)
	}
	if r.Reference == "" {
		r.Reference = "latest"
	}
	return r, nil
}
