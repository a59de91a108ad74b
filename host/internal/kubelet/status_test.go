package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/pod"
)

func statusPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "echo"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "echo", Image: "wasm://embedded/echo"}}},
	}
}

func condition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i, c := range p.Status.Conditions {
		if c.Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func TestApplyStatus(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	memMsg := "module needs 2 pages (128Ki) of initial memory; the limit resources.limits.memory is 64Ki (1 page)."
	for _, tt := range []struct {
		name string
		st   pod.Status
		// want
		phase              corev1.PodPhase
		ready              corev1.ConditionStatus
		podReason, podMsg  string
		state              string // "waiting", "running", "terminated"
		stateReason, stMsg string
		exitCode           int32
		restarts           int32
	}{{
		name:  "a pod still starting is Pending and not ready, its container waiting in ContainerCreating",
		st:    pod.Status{Phase: pod.PhasePending},
		phase: corev1.PodPending, ready: corev1.ConditionFalse,
		state: "waiting", stateReason: "ContainerCreating",
	}, {
		name:  "a started pod is Running and Ready, its container running since it started",
		st:    pod.Status{Phase: pod.PhaseRunning, Ready: true, Started: true, StartedAt: started},
		phase: corev1.PodRunning, ready: corev1.ConditionTrue,
		state: "running",
	}, {
		name: "a pod in back-off after crashes is Running, not ready, restartCount counts the restarts, the container waits in CrashLoopBackOff",
		st: pod.Status{Phase: pod.PhaseRunning, Ready: false, Started: true, RestartCount: 3, StartedAt: started,
			Reason: pod.ReasonCrashLoopBackOff, Message: "back-off 40s restarting the container after: k32_handle trapped"},
		phase: corev1.PodRunning, ready: corev1.ConditionFalse,
		state: "waiting", stateReason: pod.ReasonCrashLoopBackOff, stMsg: "back-off 40s restarting the container after: k32_handle trapped",
		restarts: 3,
	}, {
		name: "a module over its memory limit fails the pod with MemoryLimitExceeded and the message naming the need and the limit",
		st: pod.Status{Phase: pod.PhaseFailed, Started: true,
			Reason: pod.ReasonMemoryLimitExceeded, Message: memMsg},
		phase: corev1.PodFailed, ready: corev1.ConditionFalse, podReason: pod.ReasonMemoryLimitExceeded, podMsg: memMsg,
		state: "terminated", stateReason: pod.ReasonMemoryLimitExceeded, stMsg: memMsg, exitCode: 1,
	}, {
		name: "a pod whose image cannot be had is Pending, its container waiting in ErrImagePull with the message",
		st: pod.Status{Phase: pod.PhasePending, Started: true, Reason: "ErrImagePull",
			Message: "image wasm://embedded/nope: module firmware/images/wasm/nope.wasm not found (was the project built?)"},
		phase: corev1.PodPending, ready: corev1.ConditionFalse,
		state: "waiting", stateReason: "ErrImagePull",
		stMsg: "image wasm://embedded/nope: module firmware/images/wasm/nope.wasm not found (was the project built?)",
	}, {
		name:  "a pod that ran to completion (restartPolicy Never) is Succeeded, its container terminated Completed with exit code 0",
		st:    pod.Status{Phase: pod.PhaseSucceeded, Started: true, StartedAt: started, RestartCount: 0},
		phase: corev1.PodSucceeded, ready: corev1.ConditionFalse,
		state: "terminated", stateReason: "Completed", exitCode: 0,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			p := statusPod()
			applyStatus(p, tt.st, "10.0.0.7")
			if p.Status.Phase != tt.phase {
				t.Errorf("phase %q, want %q", p.Status.Phase, tt.phase)
			}
			if p.Status.Reason != tt.podReason || p.Status.Message != tt.podMsg {
				t.Errorf("status reason %q message %q, want %q %q", p.Status.Reason, p.Status.Message, tt.podReason, tt.podMsg)
			}
			// "A pod's status.podIP is the IP address of the node running it."
			if p.Status.PodIP != "10.0.0.7" || p.Status.HostIP != "10.0.0.7" || len(p.Status.PodIPs) != 1 || p.Status.PodIPs[0].IP != "10.0.0.7" {
				t.Errorf("podIP %q hostIP %q podIPs %v, want the node IP", p.Status.PodIP, p.Status.HostIP, p.Status.PodIPs)
			}
			for _, ct := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
				if c := condition(p, ct); c == nil || c.Status != tt.ready {
					t.Errorf("condition %s = %+v, want %s", ct, c, tt.ready)
				}
			}
			if c := condition(p, corev1.PodInitialized); c == nil || c.Status != corev1.ConditionTrue {
				t.Errorf("condition Initialized = %+v, want True", c)
			}
			if len(p.Status.ContainerStatuses) != 1 {
				t.Fatalf("containerStatuses %v, want one", p.Status.ContainerStatuses)
			}
			cs := p.Status.ContainerStatuses[0]
			if cs.Name != "echo" || cs.Image != "wasm://embedded/echo" {
				t.Errorf("container status names %q %q, want echo wasm://embedded/echo", cs.Name, cs.Image)
			}
			if cs.Ready != (tt.ready == corev1.ConditionTrue) || cs.RestartCount != tt.restarts {
				t.Errorf("container ready %v restartCount %d, want %v %d", cs.Ready, cs.RestartCount, tt.ready == corev1.ConditionTrue, tt.restarts)
			}
			switch s := cs.State; tt.state {
			case "waiting":
				if s.Waiting == nil || s.Running != nil || s.Terminated != nil {
					t.Fatalf("state %+v, want waiting only", s)
				}
				if s.Waiting.Reason != tt.stateReason || s.Waiting.Message != tt.stMsg {
					t.Errorf("waiting %+v, want reason %q message %q", s.Waiting, tt.stateReason, tt.stMsg)
				}
			case "running":
				if s.Running == nil || s.Waiting != nil || s.Terminated != nil {
					t.Fatalf("state %+v, want running only", s)
				}
				if !s.Running.StartedAt.Time.Equal(started) {
					t.Errorf("running since %v, want %v", s.Running.StartedAt, started)
				}
			case "terminated":
				if s.Terminated == nil || s.Waiting != nil || s.Running != nil {
					t.Fatalf("state %+v, want terminated only", s)
				}
				if s.Terminated.Reason != tt.stateReason || s.Terminated.Message != tt.stMsg || s.Terminated.ExitCode != tt.exitCode {
					t.Errorf("terminated %+v, want reason %q message %q exit code %d", s.Terminated, tt.stateReason, tt.stMsg, tt.exitCode)
				}
			}
		})
	}
}

func TestApplyStatusClearsAnOldFailureAndKeepsTransitionTimes(t *testing.T) {
	p := statusPod()
	applyStatus(p, pod.Status{Phase: pod.PhaseFailed, Started: true, Reason: "ErrImagePull", Message: "not found"}, "10.0.0.7")
	readySince := condition(p, corev1.PodReady).LastTransitionTime
	startTime := p.Status.StartTime
	// The same readiness again: the condition's transition time stays.
	applyStatus(p, pod.Status{Phase: pod.PhasePending}, "10.0.0.7")
	if got := condition(p, corev1.PodReady).LastTransitionTime; !got.Equal(&readySince) {
		t.Errorf("Ready's lastTransitionTime moved from %v to %v without a transition", readySince, got)
	}
	if p.Status.Reason != "" || p.Status.Message != "" {
		t.Errorf("a pod no longer Failed keeps reason %q message %q", p.Status.Reason, p.Status.Message)
	}
	if p.Status.StartTime == nil || !p.Status.StartTime.Equal(startTime) {
		t.Errorf("startTime changed from %v to %v", startTime, p.Status.StartTime)
	}
	applyStatus(p, pod.Status{Phase: pod.PhaseRunning, Ready: true, Started: true}, "10.0.0.7")
	if c := condition(p, corev1.PodReady); c.Status != corev1.ConditionTrue || len(p.Status.Conditions) != 3 {
		t.Errorf("conditions %+v, want Initialized, Ready and ContainersReady with Ready True", p.Status.Conditions)
	}
}

func TestApplyStatusRecordsTheLastTerminationAsAContainerRestart(t *testing.T) {
	started, ended := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)
	p := statusPod()
	applyStatus(p, pod.Status{Phase: pod.PhaseRunning, Ready: true, Started: true}, "10.0.0.7")
	if last := p.Status.ContainerStatuses[0].LastTerminationState; last.Terminated != nil {
		t.Fatalf("lastState %+v before any restart, want none", last)
	}
	applyStatus(p, pod.Status{Phase: pod.PhaseRunning, Ready: true, Started: true, RestartCount: 2, StartedAt: ended,
		LastTermination: &pod.Termination{Reason: pod.ReasonOOMKilled, Message: "k32_handle trapped: wasm error: unreachable",
			ExitCode: 137, StartedAt: started, FinishedAt: ended}}, "10.0.0.7")
	cs := p.Status.ContainerStatuses[0]
	if cs.RestartCount != 2 || cs.State.Running == nil || !cs.State.Running.StartedAt.Time.Equal(ended) {
		t.Errorf("container %+v, want running since the restart, restartCount 2", cs)
	}
	end := cs.LastTerminationState.Terminated
	if end == nil || end.Reason != pod.ReasonOOMKilled || end.ExitCode != 137 || end.Message != "k32_handle trapped: wasm error: unreachable" ||
		!end.StartedAt.Time.Equal(started) || !end.FinishedAt.Time.Equal(ended) {
		t.Errorf("lastState.terminated %+v, want OOMKilled 137 with the message and both times", end)
	}
}
