package kubelet

import (
	"bytes"
	"fmt"
	"io/fs"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/static"
)

// ImagesChanged brings the pods of this node that run one of the image
// references refs onto what the image trees now hold, as `serve --watch`
// asks after a rebuild. A pod whose module changed (or that could not start
// before) gets a new runtime on the new module, and an Event says why (a
// pod that was waiting for its image simply starts, pull.go); the node's
// other pods are untouched. As a kubelet restarts a container whose
// image changed in place, a running container is ended, which counts a
// restart, and its end is the new container's lastState.terminated:
// reason Completed, exit code 0, message swapMessage (the web view shows
// "updated" for it, not a crash). A pod whose module is the same but whose
// asset bundle changed serves the new bundle at once, without a restart.
func (k *Kubelet) ImagesChanged(refs []string) {
	changed := map[string]bool{}
	for _, ref := range refs {
		changed[ref] = true
	}
	k.mu.Lock()
	var replaced []*running
	for key, r := range k.pods {
		c := r.spec.Spec.Containers[0]
		if k.ctx == nil || !changed[c.Image] {
			continue
		}
		if r.failed.Load() == nil && k.reloadAssets(r, c.Image) {
			continue
		}
		r.replaced.Store(true)
		k.forget(r.uid, r.generation)
		restarts, last := swappedEnd(r)
		k.pods[key] = k.startAfter(k.ctx, r.spec, restarts, last)
		replaced = append(replaced, r)
	}
	k.mu.Unlock()
	for _, r := range replaced {
		c := r.spec.Spec.Containers[0]
		if !waitingForImage(r) {
			k.event(r.spec, corev1.EventTypeNormal, "Killing", fmt.Sprintf("Container %s image %s was rebuilt, will be restarted", c.Name, c.Image))
		}
		go r.pod.Stop()
	}
}

// swapMessage is the message of the termination that a swap records.
const swapMessage = "image rebuilt: the container was restarted on the new module"

// swappedEnd is the restart count and last termination that r's successor
// starts from. A running, ready container ends with the swap, as a
// container that stops when asked does: one more restart, and a
// termination with reason Completed and exit code 0. One that is not
// running (it failed to start, or it waits to restart after an end already
// counted) ends nothing: both are kept.
func swappedEnd(r *running) (int32, *pod.Termination) {
	st := r.status()
	if r.failed.Load() != nil || st.Phase != pod.PhaseRunning || !st.Ready {
		return st.RestartCount, st.LastTermination
	}
	return st.RestartCount + 1, &pod.Termination{Reason: pod.ReasonCompleted, Message: swapMessage,
		StartedAt: st.StartedAt, FinishedAt: time.Now()}
}

// reloadAssets swaps a new snapshot of the image's asset bundle into r and
// reports true when only the assets changed: the module is the one r runs
// and the image still has a bundle iff r had one.
func (k *Kubelet) reloadAssets(r *running, image string) bool {
	module, assets, err := images.ResolveModule(k.cfg.Images, image)
	if err != nil || !bytes.Equal(module, r.module) || (assets == nil) != (r.assets == nil) {
		return false
	}
	if assets == nil {
		return true // nothing of this image changed
	}
	snapshot, err := static.Snapshot(assets)
	if err != nil {
		return false // the restart reports the error
	}
	r.assets.swap(snapshot)
	return true
}

// liveAssets is a pod's asset bundle, replaced whole when it is rebuilt:
// each k32_resp_asset reads one snapshot.
type liveAssets struct{ cur atomic.Pointer[fs.FS] }

func newLiveAssets(files fs.FS) *liveAssets {
	a := &liveAssets{}
	a.swap(files)
	return a
}

func (a *liveAssets) swap(files fs.FS) { a.cur.Store(&files) }

func (a *liveAssets) Open(name string) (fs.File, error) { return (*a.cur.Load()).Open(name) }
