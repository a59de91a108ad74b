package kubelet

import (
	"context"
	"fmt"
	"runtime"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/oci"
)

// The container reasons of a pull, as a kubelet reports them.
const (
	reasonPulling          = "ContainerCreating"
	reasonErrImagePull     = "ErrImagePull"
	reasonImagePullBackOff = "ImagePullBackOff"
)

// errImagePullShown is how long a failed pull shows as ErrImagePull before
// ImagePullBackOff, as the kubelet's next sync of the pod would replace it.
const errImagePullShown = time.Second

// errNotPulled is podConfig's answer for an OCI image this node has not
// pulled yet: start then pulls it in the background (pullLoop).
var errNotPulled = &problem{reason: reasonPulling}

// pullLoop gets p's image until it has it, then starts the pod, as a
// kubelet waits for an image it cannot pull: an OCI image is pulled, a
// wasm:// module looked for again in the node's image trees (a file that
// `serve --images` or `node --images` gets later, a module that `serve
// --watch` builds, which ImagesChanged starts at once). The container
// waits as ErrImagePull right after a failed attempt and as
// ImagePullBackOff until the next, which comes after a wait that doubles
// from abi.ImagePullBackoffInitial up to abi.ImagePullBackoffMax; a pod
// never fails for its image. failed is the attempt that start already
// reported, or nil. The loop ends when r is no longer the node's runtime
// of p, or the node stops.
func (k *Kubelet) pullLoop(ctx context.Context, p *corev1.Pod, r *running, failed error) {
	key := store.KeyOf(p)
	image := p.Spec.Containers[0].Image
	backoff := abi.ImagePullBackoffInitial
	for {
		if failed == nil {
			failed = k.getImage(ctx, p, r)
			if ctx.Err() != nil || !k.current(key, r) {
				return
			}
			if failed == nil {
				return
			}
			k.waiting(p, r, reasonErrImagePull, failed.Error())
		}
		// As a kubelet: ErrImagePull for the attempt that failed, then
		// ImagePullBackOff while it waits for the next.
		if !k.wait(ctx, key, r, errImagePullShown) {
			return
		}
		k.waiting(p, r, reasonImagePullBackOff, fmt.Sprintf("Back-off pulling image %q: %v", image, failed))
		if !k.wait(ctx, key, r, backoff-errImagePullShown) {
			return
		}
		backoff = min(2*backoff, abi.ImagePullBackoffMax)
		failed = nil
	}
}

// getImage pulls p's OCI image, or looks for its wasm:// module in the
// image trees, and on success starts p in r's place.
func (k *Kubelet) getImage(ctx context.Context, p *corev1.Pod, r *running) error {
	image := p.Spec.Containers[0].Image
	var pulled *oci.Image
	if images.IsOCI(image) {
		k.event(p, corev1.EventTypeNormal, "Pulling", fmt.Sprintf("Pulling image %q", image))
		img, err := k.puller.Pull(ctx, image)
		if err != nil {
			return err
		}
		k.event(p, corev1.EventTypeNormal, "Pulled", fmt.Sprintf("Successfully pulled image %q (%s)", image, img.Manifest))
		pulled = img
	} else if _, _, err := images.ResolveModule(k.cfg.Images, image); err != nil {
		return err
	}
	key := store.KeyOf(p)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.pods[key] == r {
		k.forget(r.uid, r.generation)
		k.pods[key] = k.start(ctx, p, 0)
	}
	// Held until the pod has it: the Puller keeps in memory only what is
	// held (docs/oci.md).
	runtime.KeepAlive(pulled)
	return nil
}

// waitingForImage reports whether r is a pod that never ran, waiting for
// its image (pullLoop).
func waitingForImage(r *running) bool {
	st := r.failed.Load()
	return st != nil && st.Phase == pod.PhasePending
}

// pulledImageID names, in the status of a pod whose OCI image the node
// pulled, the image by its manifest's digest (REGISTRY/REPOSITORY@sha256:…),
// as a kubelet's imageID does.
func (k *Kubelet) pulledImageID(p *corev1.Pod) {
	if len(p.Status.ContainerStatuses) == 0 || !images.IsOCI(p.Status.ContainerStatuses[0].Image) {
		return
	}
	cs := &p.Status.ContainerStatuses[0]
	img, ok := k.puller.Cached(cs.Image)
	ref, err := images.ParseOCI(cs.Image)
	if !ok || err != nil {
		return
	}
	cs.ImageID = ref.Registry + "/" + ref.Repository + "@" + img.Manifest.String()
}

// waiting writes r's container as waiting for its image with reason.
// Started counts the pod as settled for /readyz: a pull that keeps failing
// must not hold the whole node back.
func (k *Kubelet) waiting(p *corev1.Pod, r *running, reason, message string) {
	st := &pod.Status{Phase: pod.PhasePending, Reason: reason, Message: message, Started: true}
	r.failed.Store(st)
	k.writeStatus(store.KeyOf(p), p.UID, p.Generation, r.status)
	k.observe(p, *st)
}

// current reports whether r is still the node's runtime of the pod key.
func (k *Kubelet) current(key store.Key, r *running) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.pods[key] == r
}

// wait waits d, a second at a time, and reports whether r is still the
// node's runtime of the pod key and the node still runs: a pod deleted
// during a long backoff ends its loop within a second.
func (k *Kubelet) wait(ctx context.Context, key store.Key, r *running, d time.Duration) bool {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
			if !k.current(key, r) {
				return false
			}
		}
	}
	return k.current(key, r)
}
