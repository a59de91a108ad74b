package service

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const nodeIP = "127.0.0.1"

// runningPod is a Running pod of namespace default on node n1, Ready or
// not, with the app label and the given container ports.
func runningPod(name, app, ip string, ready bool, ports ...corev1.ContainerPort) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": app}},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Ports: ports}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func terminating(p *corev1.Pod) *corev1.Pod {
	now := metav1.Now()
	p.DeletionTimestamp = &now
	return p
}

func withPhase(p *corev1.Pod, phase corev1.PodPhase) *corev1.Pod {
	p.Status.Phase = phase
	return p
}

func svc(name, app string, ports ...corev1.ServicePort) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-svc-" + name)},
		Spec:       corev1.ServiceSpec{Ports: ports},
	}
	if app != "" {
		s.Spec.Selector = map[string]string{"app": app}
	}
	return s
}

// headless makes s a headless Service (clusterIP: None).
func headless(s *corev1.Service) *corev1.Service {
	s.Spec.ClusterIP = corev1.ClusterIPNone
	return s
}

// externalName makes s a Service of type ExternalName for example.com.
func externalName(s *corev1.Service) *corev1.Service {
	s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "example.com"
	return s
}

func port(name string, p int32, target intstr.IntOrString) corev1.ServicePort {
	return corev1.ServicePort{Name: name, Port: p, TargetPort: target, Protocol: corev1.ProtocolTCP}
}

func cport(name string, p int32) corev1.ContainerPort {
	return corev1.ContainerPort{Name: name, ContainerPort: p}
}
