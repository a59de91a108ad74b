package apptest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// KubernetesState reads pods and Events from a Kubernetes cluster's API,
// for the pod and event queries of kube32 test --kubeconfig: a deployed
// app's Deployment pods are then found by their labels (podsOf).
// namespace, when set, is where every reference is read, whatever
// namespace it names (kube32 deploy --namespace put the app there).
func KubernetesState(cfg *rest.Config, namespace string) (State, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return kubeState{dyn: dyn, namespace: namespace}, nil
}

// kubeState reads through the dynamic client: client-go's clientset would
// link a typed client of every API group into the binary and double its
// size (docs/design.md, "Why is the binary small?").
type kubeState struct {
	dyn       dynamic.Interface
	namespace string
}

// clusterKinds are the kinds kube32 test reads of a cluster: their
// resource and a new object of each.
var clusterKinds = map[string]struct {
	gvr schema.GroupVersionResource
	new func() runtime.Object
}{
	"Pod":   {corev1.SchemeGroupVersion.WithResource("pods"), func() runtime.Object { return &corev1.Pod{} }},
	"Event": {corev1.SchemeGroupVersion.WithResource("events"), func() runtime.Object { return &corev1.Event{} }},
}

func (k kubeState) List(kind, namespace string) ([]runtime.Object, error) {
	if k.namespace != "" {
		namespace = k.namespace
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	k8s, ok := clusterKinds[kind]
	if !ok {
		return nil, fmt.Errorf("kube32 test reads no %s of a cluster", kind)
	}
	list, err := k.dyn.Resource(k8s.gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the cluster's %ss in %s: %w", kind, namespace, err)
	}
	out := make([]runtime.Object, 0, len(list.Items))
	for _, item := range list.Items {
		obj := k8s.new()
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Object, obj); err != nil {
			return nil, fmt.Errorf("the cluster's %s %s/%s: %w", kind, item.GetNamespace(), item.GetName(), err)
		}
		out = append(out, obj)
	}
	return out, nil
}
