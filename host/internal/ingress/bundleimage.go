package ingress

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/static"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/oci"
)

// imageBundle returns the backend of the StaticBundle namespace/name when
// its spec.image names an OCI artifact (docs/oci.md, "Bundles"), or nil
// when the bundle comes from the image trees: there is no such object, or
// it has no spec.image.
func (c *Controller) imageBundle(namespace, name, strip string) http.Handler {
	o, ok := c.cfg.Store.Get(store.Key{Kind: kinds.StaticBundle, Namespace: namespace, Name: name})
	if !ok {
		return nil
	}
	ref := o.(*kube32v1.StaticBundle).Spec.Image
	if ref == "" {
		return nil
	}
	b := &pulledBundle{c: c, name: namespace + "/" + name, ref: ref, strip: strip}
	go b.load(context.Background()) // pull before the first request wants it
	return b
}

// pulledBundle serves a StaticBundle from its pulled image. It pulls on
// first use; until a pull succeeds it answers 503 naming the bundle and
// why (fail closed). The Puller keeps a failure for
// abi.ImagePullBackoffInitial (oci.ErrPullBackoff), then pulls again.
type pulledBundle struct {
	c     *Controller
	name  string // namespace/name
	ref   string
	strip string

	mu    sync.Mutex
	files *static.Bundle
}

// load returns the bundle's files, pulling them when needed, and logs a
// pull that failed (not the failure given again while it backs off).
func (b *pulledBundle) load(ctx context.Context) (*static.Bundle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.files != nil {
		return b.files, nil
	}
	files, err := b.pull(ctx)
	if err != nil {
		if !errors.Is(err, oci.ErrPullBackoff) && err != errNoPuller {
			b.c.logf("[INGRESS] StaticBundle %s: image %s: %v", b.name, b.ref, err)
		}
		return nil, err
	}
	b.files = files
	return files, nil
}

// pull pulls the image (the Puller caches it by reference and by digest)
// and prepares its answers once per layer digest, kept with the
// controller's bundles under the digest, which no bundle name can be.
func (b *pulledBundle) pull(ctx context.Context) (*static.Bundle, error) {
	p := b.c.cfg.Pull
	if p == nil {
		return nil, errNoPuller
	}
	img, err := p.PullBundle(ctx, b.ref)
	if err != nil {
		return nil, err
	}
	key := img.Layer.String()
	b.c.bundleMu.Lock()
	defer b.c.bundleMu.Unlock()
	if files, ok := b.c.bundles[key]; ok {
		return files, nil
	}
	files, err := static.NewBundle(img.Files, serveOptions, cacheControl)
	if err != nil {
		return nil, err
	}
	if b.c.bundles == nil {
		b.c.bundles = map[string]*static.Bundle{}
	}
	b.c.bundles[key] = files
	return files, nil
}

var errNoPuller = errors.New("this controller pulls no OCI images")

func (b *pulledBundle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The pull outlives a request that gives up: the next one wants it too.
	files, err := b.load(context.WithoutCancel(r.Context()))
	if err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(abi.ImagePullBackoffInitial/time.Second)))
		writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "backend unavailable",
			"reason": "StaticBundle " + b.name + ": image " + b.ref + " could not be pulled: " + err.Error()})
		return
	}
	(&bundleBackend{files: files, strip: b.strip}).ServeHTTP(w, r)
}
