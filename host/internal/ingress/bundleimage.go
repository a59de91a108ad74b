package ingress

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/static"
	"github.com/kube32/kube32/host/internal/store"
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
	b.img.Store(c.images.get(c, b.name, ref)) // pulled before the first request wants it
	return b
}

// bundleImages are the images of the StaticBundles that the routing table
// refers to, each pulled in the background and kept in memory until no
// route refers to it (retain).
type bundleImages struct {
	mu sync.Mutex
	by map[string]*bundleImage // by "namespace/name ref"
}

// bundleImage is one StaticBundle's image: pulled until a pull succeeds,
// with the backoff a kubelet's pulls have, then served from memory.
type bundleImage struct {
	name, ref string
	stop      context.CancelFunc
	dropped   atomic.Bool
	layer     atomic.Pointer[digest.Digest]
	files     atomic.Pointer[static.Bundle]
	failed    atomic.Pointer[string] // why the last pull failed; nil before one did
}

// get returns the image of StaticBundle name (namespace/name) at ref,
// starting its pull when it is new.
func (s *bundleImages) get(c *Controller, name, ref string) *bundleImage {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := name + " " + ref
	if img, ok := s.by[key]; ok {
		return img
	}
	ctx, stop := context.WithCancel(context.Background())
	img := &bundleImage{name: name, ref: ref, stop: stop}
	if s.by == nil {
		s.by = map[string]*bundleImage{}
	}
	s.by[key] = img
	go img.pull(ctx, c)
	return img
}

// retain drops the images that t does not route to: their pulls stop and
// their files leave memory once the requests still on them end.
func (s *bundleImages) retain(t *table) {
	live := map[*bundleImage]bool{}
	if t != nil {
		handlers := []http.Handler{t.defaultBackend}
		for _, rt := range t.routes {
			handlers = append(handlers, rt.backend)
		}
		for _, h := range handlers {
			if b, ok := h.(*pulledBundle); ok {
				live[b.img.Load()] = true
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, img := range s.by {
		if !live[img] {
			img.dropped.Store(true)
			img.stop()
			delete(s.by, key)
		}
	}
}

// prepared returns the answers already prepared for layer by another
// image, if any: two StaticBundles of one build share them.
func (s *bundleImages) prepared(layer digest.Digest) *static.Bundle {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, img := range s.by {
		if l := img.layer.Load(); l != nil && *l == layer {
			if files := img.files.Load(); files != nil {
				return files
			}
		}
	}
	return nil
}

// pull pulls the image (the Puller keeps it on disk by reference and by
// digest) and prepares its answers, retrying a failed pull after a wait
// that doubles from abi.ImagePullBackoffInitial up to
// abi.ImagePullBackoffMax, until it succeeds or the image is dropped. It
// logs each failure.
func (img *bundleImage) pull(ctx context.Context, c *Controller) {
	backoff := abi.ImagePullBackoffInitial
	for {
		err := img.load(ctx, c)
		if err == nil || ctx.Err() != nil {
			return
		}
		why := err.Error()
		img.failed.Store(&why)
		if err == errNoPuller {
			return
		}
		c.logf("[INGRESS] StaticBundle %s: image %s: %v", img.name, img.ref, err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, abi.ImagePullBackoffMax)
	}
}

func (img *bundleImage) load(ctx context.Context, c *Controller) error {
	p := c.cfg.Pull
	if p == nil {
		return errNoPuller
	}
	pulled, err := p.PullBundle(ctx, img.ref)
	if err != nil {
		return err
	}
	files := c.images.prepared(pulled.Layer)
	if files == nil {
		if files, err = static.NewBundle(pulled.Files, serveOptions, cacheControl); err != nil {
			return err
		}
	}
	layer := pulled.Layer // not &pulled.Layer, which would keep the unpacked files
	img.layer.Store(&layer)
	img.files.Store(files)
	return nil
}

var errNoPuller = errors.New("this controller pulls no OCI images")

// pulledBundle serves a StaticBundle from its pulled image. Until a pull
// succeeds it answers 503 at once, naming the bundle and why (fail
// closed): a request never waits on a pull.
type pulledBundle struct {
	c     *Controller
	name  string // namespace/name
	ref   string
	strip string
	img   atomic.Pointer[bundleImage]
}

func (b *pulledBundle) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	img := b.img.Load()
	if img.dropped.Load() {
		// Dropped by a rebuild that raced the one that made this route:
		// take it up again.
		img = b.c.images.get(b.c, b.name, b.ref)
		b.img.Store(img)
	}
	if files := img.files.Load(); files != nil {
		(&bundleBackend{files: files, strip: b.strip}).ServeHTTP(w, r)
		return
	}
	reason := "StaticBundle " + b.name + ": image " + b.ref + " is being pulled"
	if why := img.failed.Load(); why != nil {
		reason = "StaticBundle " + b.name + ": image " + b.ref + " could not be pulled: " + *why
	}
	w.Header().Set("Retry-After", strconv.Itoa(int(abi.ImagePullBackoffInitial/time.Second)))
	writeError(w, http.StatusServiceUnavailable, map[string]string{"error": "backend unavailable", "reason": reason})
}
