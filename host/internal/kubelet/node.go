package kubelet

import (
	"context"
	"fmt"
	"time"

	"github.com/kube32/kube32/abi"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// labelHostname is the Node label with the node's name.
const labelHostname = "kubernetes.io/hostname"

// nodeObject is the Node this kubelet registers: its InternalIP, its pod
// port as the kubelet endpoint (as the boards report it), and Ready.
func (k *Kubelet) nodeObject() *corev1.Node {
	nodeLabels := map[string]string{labelHostname: k.cfg.NodeName, "kubernetes.io/os": "kube32", "kubernetes.io/arch": "wasm32"}
	if k.cfg.ControlPlane {
		nodeLabels[abi.LabelControlPlane] = ""
	}
	now := metav1.NewTime(time.Now())
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName, Labels: nodeLabels},
		Status: corev1.NodeStatus{
			Capacity: nodeCapacity(), Allocatable: nodeCapacity(),
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: k.cfg.NodeIP},
				{Type: corev1.NodeHostName, Address: k.cfg.NodeName},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(k.cfg.PodPort)}},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kube32 node is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: "v1.32.0-kube32", ContainerRuntimeVersion: "wazero://v1.12.0",
				OperatingSystem: "kube32", Architecture: "wasm32",
			},
		},
	}
}

// Register writes the node's Node object once. A worker calls it before
// Run to learn at once that the API server cannot be reached or refuses
// its token; Run registers again.
func (k *Kubelet) Register(ctx context.Context) error {
	if err := k.cfg.Source.RegisterNode(ctx, k.nodeObject()); err != nil {
		return fmt.Errorf("registering node %s: %w", k.cfg.NodeName, err)
	}
	return nil
}

// register writes the node's Node object, retrying until it lands: a
// worker may start before the control plane answers.
func (k *Kubelet) register(ctx context.Context) {
	for {
		err := k.cfg.Source.RegisterNode(ctx, k.nodeObject())
		if err == nil || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
	}
}
