package kubelet

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/pod"
)

// labelHostname is the Node label with the node's name.
const labelHostname = "kubernetes.io/hostname"

// nodeObject is the Node this kubelet registers: its InternalIP, its pod
// port as the kubelet endpoint (as the boards report it), and Ready; on a
// Kubernetes cluster also its taint, and the kubelet API as the kubelet
// endpoint with the pod port in an annotation (Config.Kubernetes).
func (k *Kubelet) nodeObject() *corev1.Node {
	nodeLabels := map[string]string{labelHostname: k.cfg.NodeName, "kubernetes.io/os": "kube32", "kubernetes.io/arch": "wasm32"}
	if k.cfg.ControlPlane {
		nodeLabels[abi.LabelControlPlane] = ""
	}
	now := metav1.NewTime(time.Now())
	kubeletPort := k.cfg.PodPort
	var annotations map[string]string
	var taints []corev1.Taint
	if kn := k.cfg.Kubernetes; kn != nil {
		kubeletPort = kn.KubeletPort
		annotations = map[string]string{abi.AnnotationPodPort: strconv.Itoa(k.cfg.PodPort)}
		taints = []corev1.Taint{{Key: abi.TaintWasm, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: k.cfg.NodeName, Labels: nodeLabels, Annotations: annotations},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{
			Addresses:       k.addresses(),
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: int32(kubeletPort)}},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kube32 node is posting ready status", LastHeartbeatTime: now, LastTransitionTime: now,
			}},
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: abi.KubernetesVersion, ContainerRuntimeVersion: "wazero://" + pod.WazeroVersion(),
				OperatingSystem: "kube32", Architecture: "wasm32",
			},
			Capacity: k.capacity(), Allocatable: k.allocatable(),
		},
	}
}

// addresses are the Node's addresses: its InternalIP, and on a Kubernetes
// cluster the Hostname it was given (KubernetesNode.Hostname). The Node's
// name is not one: kube-apiserver dials a Hostname address before an
// InternalIP, and a name that does not resolve to the node would break
// kubectl logs and port-forward (docs/kubernetes.md).
func (k *Kubelet) addresses() []corev1.NodeAddress {
	out := []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: k.cfg.NodeIP}}
	if kn := k.cfg.Kubernetes; kn != nil && kn.Hostname != "" {
		out = append(out, corev1.NodeAddress{Type: corev1.NodeHostName, Address: kn.Hostname})
	}
	return out
}

// capacity is the node's status.capacity: the host's cores, which its pods
// run on (against them kubectl top node shows CPU in percent), and on a
// board the RAM its pods take their memory from (abi.Board.PodRAM) and one
// pod per WebAssembly page of pod memory, the least a pod takes. Without a
// board a node reports no memory: nothing bounds it, and the scheduler
// places pods by labels alone.
func (k *Kubelet) capacity() corev1.ResourceList {
	if b := k.cfg.Board; b != nil {
		return resources(b.PodRAM(), b.MaxPods())
	}
	return k.unbounded()
}

// allocatable is the node's status.allocatable: the cores, and on a board
// the pod memory (abi.Board.PodMemory), what the firmware leaves to the
// pods.
func (k *Kubelet) allocatable() corev1.ResourceList {
	if b := k.cfg.Board; b != nil {
		return resources(b.PodMemory, b.MaxPods())
	}
	return k.unbounded()
}

// kubernetesMaxPods is the pods a node of a Kubernetes cluster without a
// board reports it can take: the kubelet's default --max-pods. Such a
// cluster's scheduler places no pod on a node that reports none.
const kubernetesMaxPods = 110

// unbounded is the capacity of a node without a board: the cores, and on
// a Kubernetes cluster, whose scheduler places a pod with a memory request
// only where it fits, the host's memory and kubernetesMaxPods, as a
// kubelet reports them.
func (k *Kubelet) unbounded() corev1.ResourceList {
	l := resources(0, 0)
	if k.cfg.Kubernetes != nil {
		if memory := hostMemory(); memory > 0 {
			l[corev1.ResourceMemory] = *resource.NewQuantity(memory, resource.BinarySI)
		}
		l[corev1.ResourcePods] = *resource.NewQuantity(kubernetesMaxPods, resource.DecimalSI)
	}
	return l
}

// resources lists the host's cores and, when not 0, memory and pods.
func resources(memory, pods int64) corev1.ResourceList {
	l := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(int64(goruntime.NumCPU()), resource.DecimalSI)}
	if memory > 0 {
		l[corev1.ResourceMemory] = *resource.NewQuantity(memory, resource.BinarySI)
		l[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
	}
	return l
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

// reasonRuntimeClass is the reason of a pod a node of a Kubernetes cluster
// refuses because it is not a kube32 pod.
const reasonRuntimeClass = "UnsupportedRuntimeClass"

// admitRuntimeClass refuses, on a node of a Kubernetes cluster, a pod
// that is not a kube32 pod: one whose tolerations let it land here (a
// DaemonSet's that tolerates every taint) but whose containers are not
// WebAssembly modules.
func (k *Kubelet) admitRuntimeClass(p *corev1.Pod) *problem {
	if k.cfg.Kubernetes == nil || IsKube32Pod(p) {
		return nil
	}
	return &problem{reason: reasonRuntimeClass, message: fmt.Sprintf(
		"Pod was rejected: node %s runs only kube32 pods, whose spec.runtimeClassName is %q (docs/kubernetes.md)",
		k.cfg.NodeName, abi.RuntimeClassName)}
}
