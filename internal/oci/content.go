package oci

import (
	"context"
	"fmt"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/internal/termtext"
)

// ContentTag is the tag a content-addressed push moves to what it pushed,
// so that a registry that removes untagged manifests keeps the newest.
const ContentTag = "latest"

// PushModuleByDigest writes module as a wasm artifact to repo
// (REGISTRY/REPOSITORY, no tag) unless the registry holds its manifest
// already, and returns the reference by digest, repo@sha256:…, and
// whether anything was pushed. The same module always has the same
// reference, so a Pod that names it changes exactly when the module does.
func PushModuleByDigest(ctx context.Context, module []byte, repo string, plainHTTP bool) (ref string, pushed bool, err error) {
	return pushByDigest(ctx, moduleArtifact(module), repo, plainHTTP)
}

// PushBundleByDigest is PushModuleByDigest for the built bundle in the
// folder dir.
func PushBundleByDigest(ctx context.Context, dir, repo string, plainHTTP bool) (ref string, pushed bool, err error) {
	layer, err := BundleLayer(dir)
	if err != nil {
		return "", false, err
	}
	return pushByDigest(ctx, bundleArtifact(layer), repo, plainHTTP)
}

func pushByDigest(ctx context.Context, a artifact, repo string, plainHTTP bool) (string, bool, error) {
	r, err := pushReference(repo + ":" + ContentTag)
	if err != nil {
		return "", false, err
	}
	ref := repo + "@" + a.desc.Digest.String()
	if _, err := images.ParseOCI(ref); err != nil {
		return "", false, err
	}
	remote := repository(r, plainHTTP)
	held, err := remote.Exists(ctx, a.desc)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", ref, termtext.Error(err))
	}
	if held {
		return ref, false, nil
	}
	if err := a.push(ctx, remote, r); err != nil {
		return "", false, err
	}
	return ref, true, nil
}
