package kubelet

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A node that registers again writes its own labels, annotations and
// taints over the Node, and keeps what others put there: a label from
// kubectl, the node lifecycle controller's taint (docs/kubernetes.md).
func TestRegisteringAgainKeepsOthersLabelsAndTaints(t *testing.T) {
	cur := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "7",
			Labels:      map[string]string{"zone": "lab", "kubernetes.io/arch": "old"},
			Annotations: map[string]string{"note": "kept"}},
		Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", Taints: []corev1.Taint{
			{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute},
			{Key: "kube32.io/wasm", Value: "old", Effect: corev1.TaintEffectNoSchedule},
		}},
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"kubernetes.io/arch": "wasm32"},
			Annotations: map[string]string{"kube32.io/pod-port": "7000"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "kube32.io/wasm", Value: "true", Effect: corev1.TaintEffectNoSchedule}}},
	}
	got := mergeNode(cur, n, false)
	if want := map[string]string{"zone": "lab", "kubernetes.io/arch": "wasm32"}; !reflect.DeepEqual(got.Labels, want) {
		t.Errorf("labels %v, want %v", got.Labels, want)
	}
	if want := map[string]string{"note": "kept", "kube32.io/pod-port": "7000"}; !reflect.DeepEqual(got.Annotations, want) {
		t.Errorf("annotations %v, want %v", got.Annotations, want)
	}
	wantTaints := []corev1.Taint{
		{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute},
		{Key: "kube32.io/wasm", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}
	if !reflect.DeepEqual(got.Spec.Taints, wantTaints) {
		t.Errorf("taints %v, want %v", got.Spec.Taints, wantTaints)
	}
	if got.ResourceVersion != "7" || got.Spec.PodCIDR != "10.0.0.0/24" {
		t.Errorf("resourceVersion %q, podCIDR %q: want the current Node's", got.ResourceVersion, got.Spec.PodCIDR)
	}
	if cur.Labels["kubernetes.io/arch"] != "old" {
		t.Error("mergeNode changed the current Node")
	}
}

// A node of a Kubernetes cluster that registers again leaves its Node's
// taints and owner references exactly as they are: kube-apiserver's
// NodeRestriction admission forbids a node to change either, and a
// kubelet sets its taints only when it creates its Node.
func TestRegisteringAgainOnKubernetesLeavesTaintsAlone(t *testing.T) {
	taints := []corev1.Taint{
		{Key: "kube32.io/wasm", Value: "true", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute},
	}
	owners := []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u"}}
	for _, c := range []struct {
		what string
		cur  []corev1.Taint
	}{
		{"the node's taint among others", taints},
		{"the node's taint removed by an administrator", taints[1:]},
	} {
		cur := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "7", OwnerReferences: owners},
			Spec: corev1.NodeSpec{Taints: c.cur}}
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: corev1.NodeSpec{Taints: taints[:1]}}
		got := mergeNode(cur, n, true)
		if !reflect.DeepEqual(got.Spec.Taints, c.cur) {
			t.Errorf("%s: taints %v, want %v unchanged", c.what, got.Spec.Taints, c.cur)
		}
		if !reflect.DeepEqual(got.OwnerReferences, owners) {
			t.Errorf("%s: owner references %v, want %v unchanged", c.what, got.OwnerReferences, owners)
		}
	}
}
