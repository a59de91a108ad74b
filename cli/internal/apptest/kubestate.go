package apptest

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// KubernetesState reads pods and Events from a Kubernetes cluster's API,
// for the pod and event queries of kube32 test --kubeconfig: a deployed
// app's Deployment pods are then found by their labels (podsOf).
// namespace, when set, is where every reference is read, whatever
// namespace it names (kube32 deploy --namespace put the app there).
func KubernetesState(cfg *rest.Config, namespace string) (State, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return kubeState{cs: cs, namespace: namespace}, nil
}

type kubeState struct {
	cs        kubernetes.Interface
	namespace string
}

func (k kubeState) List(kind, namespace string) ([]runtime.Object, error) {
	if k.namespace != "" {
		namespace = k.namespace
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	var out []runtime.Object
	switch kind {
	case "Pod":
		list, err := k.cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing the cluster's pods in %s: %w", namespace, err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	case "Event":
		list, err := k.cs.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("listing the cluster's Events in %s: %w", namespace, err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	default:
		return nil, fmt.Errorf("kube32 test reads no %s of a cluster", kind)
	}
	return out, nil
}
