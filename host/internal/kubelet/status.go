package kubelet

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/termtext"
)

// applyStatus writes a pod runtime's status into the Pod object the way a
// kubelet does: phase, conditions, the container's state and restarts. Its
// messages may quote text from outside (a registry's error, a name in the
// module), so each is made one safe line by termtext.Line, the rule of pod
// logs: kubectl describe prints them to a terminal.
func applyStatus(p *corev1.Pod, st pod.Status, nodeIP string) {
	st.Message = termtext.Line(st.Message)
	p.Status.Phase = corev1.PodPhase(st.Phase)
	p.Status.HostIP = nodeIP
	p.Status.HostIPs = []corev1.HostIP{{IP: nodeIP}}
	p.Status.PodIP = nodeIP
	p.Status.PodIPs = []corev1.PodIP{{IP: nodeIP}}
	if p.Status.StartTime == nil {
		now := metav1.Now()
		p.Status.StartTime = &now
	}
	p.Status.Reason, p.Status.Message = "", ""
	if st.Phase == "Failed" {
		p.Status.Reason, p.Status.Message = st.Reason, st.Message
	}
	ready := corev1.ConditionFalse
	if st.Ready {
		ready = corev1.ConditionTrue
	}
	setCondition(p, corev1.PodInitialized, corev1.ConditionTrue)
	setCondition(p, corev1.PodReady, ready)
	setCondition(p, corev1.ContainersReady, ready)
	c := p.Spec.Containers[0]
	cs := corev1.ContainerStatus{
		Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: st.Ready,
		RestartCount: st.RestartCount, Started: &st.Ready,
	}
	switch {
	case st.Phase == "Running" && st.Ready:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(orNow(st.StartedAt))}
	case st.Phase == "Failed" || st.Phase == "Succeeded":
		exit := int32(0)
		if st.Phase == "Failed" {
			exit = 1
		}
		cs.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: exit, Reason: orDefault(st.Reason, "Completed"),
			Message: st.Message, FinishedAt: metav1.Now(), StartedAt: metav1.NewTime(orNow(st.StartedAt))}
	default:
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: orDefault(st.Reason, "ContainerCreating"), Message: st.Message}
	}
	if end := st.LastTermination; end != nil {
		// As after a container restart: kubectl describe shows it as "Last
		// State: Terminated".
		cs.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: end.ExitCode, Reason: end.Reason,
			Message: termtext.Line(end.Message), StartedAt: metav1.NewTime(end.StartedAt), FinishedAt: metav1.NewTime(end.FinishedAt)}
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{cs}
}

func setCondition(p *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus) {
	for i, c := range p.Status.Conditions {
		if c.Type == t {
			if c.Status != s {
				p.Status.Conditions[i].Status = s
				p.Status.Conditions[i].LastTransitionTime = metav1.Now()
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: s, LastTransitionTime: metav1.Now()})
}

func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
