package k8sdeploy

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The core resources deploy reads besides those it applies (resources).
// It reads and writes typed objects through the dynamic client (getAs,
// listAs, create): client-go's clientset would link a typed client of
// every API group into the binary and double its size (docs/design.md,
// "Why is the binary small?").
var (
	nodeResource      = corev1.SchemeGroupVersion.WithResource("nodes")
	namespaceResource = corev1.SchemeGroupVersion.WithResource("namespaces")
	podResource       = corev1.SchemeGroupVersion.WithResource("pods")
)

// getAs reads the object name of resource gvr in namespace ("" for a
// cluster-scoped one) as a T.
func getAs[T any](ctx context.Context, c clients, gvr schema.GroupVersionResource, namespace, name string) (*T, error) {
	u, err := c.dyn.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	out := new(T)
	return out, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)
}

// listAs lists the objects of resource gvr in namespace (all of them for
// metav1.NamespaceAll) that match opts, as Ts.
func listAs[T any](ctx context.Context, c clients, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) ([]T, error) {
	list, err := c.dyn.Resource(gvr).Namespace(namespace).List(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(list.Items))
	for i := range list.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(list.Items[i].Object, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// create creates obj, a typed object, as resource gvr in namespace.
func create(ctx context.Context, c clients, gvr schema.GroupVersionResource, namespace string, obj any, opts metav1.CreateOptions) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	_, err = c.dyn.Resource(gvr).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: m}, opts)
	return err
}
