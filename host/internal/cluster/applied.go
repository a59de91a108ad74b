package cluster

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// markApplied records obj, as given in its manifest, in the
// kubectl.kubernetes.io/last-applied-configuration annotation, as `kubectl
// apply` does; so a later `kubectl apply` of the same file finds the
// object unchanged rather than warning that it was not applied by kubectl.
func markApplied(obj runtime.Object) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return
	}
	delete(u, "status")
	u = prune(u)
	// kubectl leaves an empty annotations map where it took its own out.
	if md, ok := u["metadata"].(map[string]any); ok {
		if _, ok := md["annotations"]; !ok {
			md["annotations"] = map[string]any{}
		}
	}
	data, err := json.Marshal(u)
	if err != nil {
		return
	}
	meta := obj.(metav1.Object)
	annotations := meta.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[corev1.LastAppliedConfigAnnotation] = string(data) + "\n"
	meta.SetAnnotations(annotations)
}

// prune drops the nulls and empty maps that typed objects carry and
// manifests do not.
func prune(m map[string]any) map[string]any {
	for k, v := range m {
		switch v := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			if p := prune(v); len(p) == 0 {
				delete(m, k)
			}
		case []any:
			for i, item := range v {
				if im, ok := item.(map[string]any); ok {
					v[i] = prune(im)
				}
			}
		}
	}
	return m
}
