package kubelet

import (
	"testing"

	"github.com/kube32/kube32/host/internal/pod"
)

// A swap ends a container only when one runs: a runtime still starting, or
// one that failed to start, is replaced with its restart count and last
// termination kept (a kubelet counts the containers that ended). The
// running case is TestServeWatchSwapShowsUpdatedInTheWebView (cli).
func TestSwapOfAContainerNotRunningEndsNothing(t *testing.T) {
	last := &pod.Termination{Reason: "Error", ExitCode: 134}
	r := &running{pod: pod.New(pod.Config{Namespace: "default", Name: "p", RestartCount: 3, LastTermination: last})}
	if n, end := swappedEnd(r); n != 3 || end != last {
		t.Errorf("swap of a pod still starting: restarts %d, last %+v; want 3 and its own last termination", n, end)
	}
	r.failed.Store(&pod.Status{Phase: pod.PhaseFailed, Reason: "ModuleInvalid", Started: true})
	if n, end := swappedEnd(r); n != 0 || end != nil {
		t.Errorf("swap of a pod that failed to start: restarts %d, last %+v; want 0 and none", n, end)
	}
}
