package admission

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// podPrinter prints what `kubectl get pods` shows, by kube-apiserver's
// rules: READY containers, STATUS from the phase, reason or a container's
// waiting/terminated reason ("Terminating" once deleted), RESTARTS with
// the last restart's age.
var podPrinter = Printer{
	Columns: []metav1.TableColumnDefinition{nameCol,
		col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", 0),
		col("Status", "string", "The aggregate status of the containers in this pod.", 0),
		col("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.", 0),
		ageCol,
		col("IP", "string", "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", 1),
		col("Node", "string", "NodeName is a request to schedule this pod onto a specific node.", 1),
		col("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node.", 1),
		col("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness.", 1)},
	Cells: func(o runtime.Object) []any {
		p := o.(*corev1.Pod)
		reason := string(p.Status.Phase)
		if p.Status.Reason != "" {
			reason = p.Status.Reason
		}
		restarts, ready := 0, 0
		var lastRestart time.Time
		hasRunning := false
		for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
			c := p.Status.ContainerStatuses[i]
			restarts += int(c.RestartCount)
			if t := c.LastTerminationState.Terminated; t != nil && t.FinishedAt.After(lastRestart) {
				lastRestart = t.FinishedAt.Time
			}
			switch {
			case c.State.Waiting != nil && c.State.Waiting.Reason != "":
				reason = c.State.Waiting.Reason
			case c.State.Terminated != nil && c.State.Terminated.Reason != "":
				reason = c.State.Terminated.Reason
			case c.State.Terminated != nil:
				reason = fmt.Sprintf("ExitCode:%d", c.State.Terminated.ExitCode)
			case c.Ready && c.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		if reason == "Completed" && hasRunning {
			reason = "NotReady"
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					reason = "Running"
				}
			}
		}
		if p.DeletionTimestamp != nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
			reason = "Terminating"
		}
		restartCell := strconv.Itoa(restarts)
		if restarts != 0 && !lastRestart.IsZero() {
			restartCell = fmt.Sprintf("%d (%s ago)", restarts, duration.HumanDuration(time.Since(lastRestart)))
		}
		ip, node := "<none>", "<none>"
		if p.Status.PodIP != "" {
			ip = p.Status.PodIP
		}
		if p.Spec.NodeName != "" {
			node = p.Spec.NodeName
		}
		return []any{p.Name, fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), reason, restartCell, age(o), ip, node, "<none>", "<none>"}
	},
}
