package cluster

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pinnedPod is a pod in default labelled app=<app> (no label when app is
// ""), pinned to node, whose one container, main, is c running the test
// image wasm://embedded/<image>.
func pinnedPod(name, app, node, image string, c corev1.Container) *corev1.Pod {
	p := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       corev1.PodSpec{NodeSelector: map[string]string{"kubernetes.io/hostname": node}},
	}
	if app != "" {
		p.Labels = map[string]string{"app": app}
	}
	c.Name, c.Image = "main", "wasm://embedded/"+image
	p.Spec.Containers = []corev1.Container{c}
	return p
}

// capabilities adds the kube32 capabilities caps to a container.
func capabilities(caps ...corev1.Capability) *corev1.SecurityContext {
	return &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: caps}}
}

// memoryLimit is a container's resources with the memory limit limit.
func memoryLimit(limit string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}}
}
