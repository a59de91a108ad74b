// Package k8sdeploy is `kube32 deploy` (docs/kubernetes.md): the objects
// a project's manifests become on a Kubernetes cluster (a Deployment of
// runtime class kube32 for each Pod, the pushed references in place of
// the image trees' names), their server-side apply under one field
// manager, the pruning of what an earlier deploy of the app made and the
// project no longer has, the wait for the rollouts, and the removal of
// the app. The rules of that translation live here and nowhere else.
package k8sdeploy

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/images"
	"github.com/kube32/kube32/host/apis/kube32v1"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/k8sinstall"
)

// Options say how a project's objects become a cluster's.
type Options struct {
	// App is the app's name (kube32.yaml's name): the value of
	// abi.LabelDeployApp on everything deploy applies.
	App string
	// Namespace, when set, is the namespace of every object, whatever its
	// manifest says.
	Namespace string
	// Replicas is the replicas of a Pod's Deployment when the Pod has no
	// abi.AnnotationReplicas; 0 means 1.
	Replicas int32
	// Images maps each image a pod of the project builds (wasm://…) to
	// the reference it was pushed to.
	Images map[string]string
	// Bundles maps each StaticBundle the project builds to the reference
	// it was pushed to.
	Bundles map[string]string
}

// The kinds deploy applies, in the order it applies them: the policies
// before the pods they hold, the Ingresses after their backends.
var order = []string{"NetworkPolicy", "Service", "StaticBundle", "Deployment", "Ingress"}

// Objects turns the project's objects into what deploy applies, in order.
// Namespaces are left out: Apply makes those the objects need. Errors name
// the file, the document, the object and the field.
func Objects(objs []manifest.Object, opts Options) ([]*unstructured.Unstructured, error) {
	if errs := validation.IsDNS1123Label(opts.App); len(errs) > 0 {
		return nil, fmt.Errorf("app name %q: %s", opts.App, strings.Join(errs, "; "))
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		var u *unstructured.Unstructured
		var err error
		switch obj := o.Obj.(type) {
		case *corev1.Namespace:
			continue
		case *corev1.Pod:
			u, err = deployment(obj, opts)
		case *kube32v1.StaticBundle:
			u, err = staticBundle(obj, opts)
		case *networkingv1.Ingress:
			ing := obj.DeepCopy()
			if ing.Spec.IngressClassName == nil {
				class := abi.IngressClassName
				ing.Spec.IngressClassName = &class
			}
			u = asApplied(ing, ing.ObjectMeta, opts)
		case *corev1.Service:
			u = asApplied(obj, obj.ObjectMeta, opts)
		case *networkingv1.NetworkPolicy:
			u = asApplied(obj, obj.ObjectMeta, opts)
		default:
			err = fmt.Errorf("kind: kube32 deploy does not apply a %s", o.Kind())
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d (%s): %w", o.File, o.Doc, o.Key(), err)
		}
		out = append(out, u)
	}
	slices.SortStableFunc(out, func(a, b *unstructured.Unstructured) int {
		return slices.Index(order, a.GetKind()) - slices.Index(order, b.GetKind())
	})
	seen := map[string]bool{}
	for _, u := range out {
		key := k8sinstall.Name(u) + " in " + u.GetNamespace()
		if seen[key] {
			return nil, fmt.Errorf("%s: two objects of the project become it", key)
		}
		seen[key] = true
	}
	return out, nil
}

// deployment is the Deployment a Pod becomes: its labels, annotations and
// spec kept, runtime class kube32, each image the reference it was pushed
// to, replicas from abi.AnnotationReplicas or Options.Replicas.
func deployment(pod *corev1.Pod, opts Options) (*unstructured.Unstructured, error) {
	pod = pod.DeepCopy()
	spec := &pod.Spec
	switch {
	case spec.NodeName != "":
		return nil, fmt.Errorf("spec.nodeName: %q pins the pod to one node; a Deployment's pods are scheduled onto kube32 nodes (remove it, or choose nodes with spec.nodeSelector)", spec.NodeName)
	case spec.RestartPolicy != corev1.RestartPolicyAlways:
		return nil, fmt.Errorf("spec.restartPolicy: %q; a Deployment's pods restart Always", spec.RestartPolicy)
	case spec.RuntimeClassName != nil && *spec.RuntimeClassName != abi.RuntimeClassName:
		return nil, fmt.Errorf("spec.runtimeClassName: %q; kube32 pods run in RuntimeClass %s", *spec.RuntimeClassName, abi.RuntimeClassName)
	}
	for _, key := range []string{abi.LabelDeployApp, abi.LabelDeployPod} {
		if _, ok := pod.Labels[key]; ok {
			return nil, fmt.Errorf("metadata.labels[%s]: kube32 deploy sets it", key)
		}
	}
	runtimeClass := abi.RuntimeClassName
	spec.RuntimeClassName = &runtimeClass
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if !images.IsWasmRef(c.Image) {
			continue // an OCI reference: pulled as it is
		}
		ref, ok := opts.Images[c.Image]
		if !ok {
			return nil, fmt.Errorf("spec.containers[%d].image: %q: no pod of kube32.yaml builds it (it builds %s)", i, c.Image, builtList(opts.Images))
		}
		c.Image = ref
	}
	replicas := opts.Replicas
	if replicas == 0 {
		replicas = 1
	}
	if v, ok := pod.Annotations[abi.AnnotationReplicas]; ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("metadata.annotations[%s]: %q: want a number of replicas, 0 or more", abi.AnnotationReplicas, v)
		}
		replicas = int32(n)
		delete(pod.Annotations, abi.AnnotationReplicas)
	}
	selector := map[string]string{abi.LabelDeployApp: opts.App, abi.LabelDeployPod: pod.Name}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: merged(pod.Labels, selector), Annotations: pod.Annotations},
		Spec:       *spec,
	}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: pod.ObjectMeta,
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: template,
		},
	}
	d.Annotations = nil // the Pod's stay on its pods
	u := asApplied(d, d.ObjectMeta, opts)
	unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "creationTimestamp")
	return u, nil
}

// staticBundle is a StaticBundle whose spec.image is the reference its
// bundle was pushed to; one that already names an image stays as it is.
func staticBundle(sb *kube32v1.StaticBundle, opts Options) (*unstructured.Unstructured, error) {
	cp := *sb // only spec.image changes, a string
	sb = &cp
	if ref, ok := opts.Bundles[sb.Name]; ok {
		sb.Spec.Image = ref
	} else if sb.Spec.Image == "" {
		return nil, fmt.Errorf("spec.image: empty, and no bundle of kube32.yaml is named %q (it builds %s): a node of a cluster has no image tree to serve it from", sb.Name, builtList(opts.Bundles))
	}
	return asApplied(sb, sb.ObjectMeta, opts), nil
}

// asApplied is obj as deploy applies it: its kind, name, namespace,
// labels (with abi.LabelDeployApp) and annotations, and its spec; no
// status, nor any field the cluster sets.
func asApplied(obj runtime.Object, meta metav1.ObjectMeta, opts Options) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err) // the kinds are kube32's typed objects
	}
	u := &unstructured.Unstructured{Object: m}
	delete(u.Object, "status")
	ns := meta.Namespace
	if opts.Namespace != "" {
		ns = opts.Namespace
	}
	clean := &unstructured.Unstructured{Object: map[string]any{}}
	clean.SetName(meta.Name)
	clean.SetNamespace(ns)
	clean.SetLabels(merged(meta.Labels, map[string]string{abi.LabelDeployApp: opts.App}))
	if len(meta.Annotations) > 0 {
		clean.SetAnnotations(meta.Annotations)
	}
	u.Object["metadata"] = clean.Object["metadata"]
	return u
}

func merged(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, b)
	return out
}

// builtList names what the project builds, for messages.
func builtList(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// YAML is objs as one YAML stream, what `kube32 deploy --dry-run -o yaml`
// prints and `kubectl apply -f -` accepts.
func YAML(objs []*unstructured.Unstructured) ([]byte, error) {
	var out bytes.Buffer
	for i, u := range objs {
		b, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k8sinstall.Name(u), err)
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}
