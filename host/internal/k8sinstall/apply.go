package k8sinstall

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// FieldManager is the server-side apply field manager of `kube32 install`:
// it owns the fields it sets, so applying again changes nothing.
const FieldManager = "kube32-install"

// establishPatience bounds the wait for the CRD to be served, so that a
// StaticBundle can be created right after install returns.
const establishPatience = time.Minute

// resources are the resource names of the kinds Objects holds.
var resources = map[string]string{
	"CustomResourceDefinition": "customresourcedefinitions",
	"RuntimeClass":             "runtimeclasses",
	"IngressClass":             "ingressclasses",
	"Namespace":                "namespaces",
	"ServiceAccount":           "serviceaccounts",
	"ClusterRole":              "clusterroles",
	"ClusterRoleBinding":       "clusterrolebindings",
	"Role":                     "roles",
	"RoleBinding":              "rolebindings",
}

// Name is how kubectl names an object in its output: kind.group/name,
// e.g. ingressclass.networking.k8s.io/kube32.
func Name(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	kind := strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		kind += "." + gvk.Group
	}
	return kind + "/" + u.GetName()
}

// YAML is Objects as one YAML stream, what `kube32 install --dry-run -o
// yaml` prints and `kubectl apply -f -` accepts.
func YAML() ([]byte, error) {
	var out bytes.Buffer
	for i, u := range Objects() {
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name(u), err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

// Apply applies Objects to the cluster of cfg with server-side apply, one
// after another, and reports each as kubectl does: "<name> created",
// "unchanged" (its resourceVersion stayed) or "configured". It waits for
// the CRD to be Established before going on.
func Apply(ctx context.Context, cfg *rest.Config, report func(line string)) error {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 { // client-go's default, 5 a second, would make install take seconds
		cfg.QPS, cfg.Burst = 50, 100
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, u := range Objects() {
		gvk := u.GroupVersionKind()
		gvr := gvk.GroupVersion().WithResource(resources[gvk.Kind])
		r := resourceIn(client, gvr, u.GetNamespace())
		before, err := r.Get(ctx, u.GetName(), metav1.GetOptions{})
		existed := err == nil
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("%s: %w", Name(u), err)
		}
		// Force: the objects are kube32's, so a field someone else changed
		// is taken back.
		after, err := r.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
		if err != nil {
			return fmt.Errorf("%s: %w", Name(u), err)
		}
		switch {
		case !existed:
			report(Name(u) + " created")
		case before.GetResourceVersion() == after.GetResourceVersion():
			report(Name(u) + " unchanged")
		default:
			report(Name(u) + " configured")
		}
		if gvk.Kind == "CustomResourceDefinition" {
			if err := waitEstablished(ctx, r, u.GetName()); err != nil {
				return fmt.Errorf("%s: %w", Name(u), err)
			}
		}
	}
	for _, u := range Stale() {
		if err := deleteStale(ctx, client, u, report); err != nil {
			return fmt.Errorf("%s: %w", Name(u), err)
		}
	}
	return nil
}

// deleteStale deletes the object u names when install applied it (its
// fields are FieldManager's), and reports "<name> deleted". An object of
// that name that someone else made stays.
func deleteStale(ctx context.Context, client dynamic.Interface, u *unstructured.Unstructured, report func(string)) error {
	gvk := u.GroupVersionKind()
	r := resourceIn(client, gvk.GroupVersion().WithResource(resources[gvk.Kind]), u.GetNamespace())
	cur, err := r.Get(ctx, u.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ours := false
	for _, m := range cur.GetManagedFields() {
		ours = ours || m.Manager == FieldManager
	}
	if !ours {
		return nil
	}
	uid := cur.GetUID()
	err = r.Delete(ctx, u.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	report(Name(u) + " deleted")
	return nil
}

func resourceIn(client dynamic.Interface, gvr schema.GroupVersionResource, namespace string) dynamic.ResourceInterface {
	if namespace != "" {
		return client.Resource(gvr).Namespace(namespace)
	}
	return client.Resource(gvr)
}

// waitEstablished waits until the CRD name has condition Established.
func waitEstablished(ctx context.Context, crds dynamic.ResourceInterface, name string) error {
	ctx, cancel := context.WithTimeout(ctx, establishPatience)
	defer cancel()
	for {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err == nil && Established(crd) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not Established after %s: %w", establishPatience, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Established reports whether a CustomResourceDefinition has condition
// Established=True: its kind is served.
func Established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
