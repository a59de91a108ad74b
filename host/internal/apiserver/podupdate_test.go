package apiserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

// Issue 19, item 2: a Pod's spec is immutable but for the fields
// kube-apiserver lets an update change (docs/kubectl.md, "Pod updates"):
// anything else is a 422 Invalid on `spec` in kube-apiserver's words, and
// changes nothing; what kube-apiserver allows still works.
func TestPodUpdatesMayChangeOnlyImagesDeadlineTolerationsAndGrace(t *testing.T) {
	e, s := storeEnv(t)
	pod := manifest(t, `apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  activeDeadlineSeconds: 100
  tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 5}]
  containers: [{name: c, image: "wasm://embedded/echo", env: [{name: A, value: "1"}]}]
`)
	e.run(t, false, "apply", "-f", pod)
	key := store.Key{Kind: "Pod", Namespace: "default", Name: "web"}
	rv := resourceVersion(t, s, key)

	for _, tc := range []struct{ name, patch, field, message string }{
		{"an env change", `{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"2"}]}]}}`, "spec",
			"pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"},
		{"a node selector", `{"spec":{"nodeSelector":{"disk":"ssd"}}}`, "spec", "pod updates may not change fields other than"},
		{"a longer deadline", `{"spec":{"activeDeadlineSeconds":200}}`, "spec.activeDeadlineSeconds", "must be less than or equal to previous value"},
		{"a changed toleration", `{"spec":{"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]}}`, "spec.tolerations", "existing toleration can not be modified except its tolerationSeconds"},
	} {
		r := testhttp.Do(t, "PATCH", e.apiURL+"/api/v1/namespaces/default/pods/web", tc.patch, "Content-Type: application/merge-patch+json")
		var st metav1.Status
		json.Unmarshal([]byte(r.Body), &st)
		found := false
		if st.Details != nil {
			for _, c := range st.Details.Causes {
				found = found || c.Field == tc.field && strings.Contains(c.Message, tc.message)
			}
		}
		if r.Status != 422 || st.Reason != metav1.StatusReasonInvalid || !found {
			t.Errorf("%s: %s, want 422 Invalid with a cause on %s saying %q", tc.name, r, tc.field, tc.message)
		}
	}
	if got := resourceVersion(t, s, key); got != rv {
		t.Errorf("a refused update changed the pod: resourceVersion %s -> %s", rv, got)
	}
	out := e.run(t, true, "patch", "pod", "web", "-p", `{"spec":{"containers":[{"name":"c","env":[{"name":"A","value":"2"}]}]}}`)
	if !strings.Contains(out, `Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than`) {
		t.Errorf("kubectl patch of env: %s", out)
	}

	// What kube-apiserver allows: a new image, a shorter deadline, an added
	// toleration and a changed tolerationSeconds, labels.
	e.run(t, false, "patch", "pod", "web", "-p", `{"metadata":{"labels":{"tier":"x"}},"spec":{"activeDeadlineSeconds":50,"containers":[{"name":"c","image":"wasm://embedded/other"}]}}`)
	e.run(t, false, "patch", "pod", "web", "--type=json", "-p", `[{"op":"replace","path":"/spec/tolerations/0/tolerationSeconds","value":9},{"op":"add","path":"/spec/tolerations/-","value":{"key":"k2","operator":"Exists"}}]`)
	o, _ := s.Get(key)
	p := o.(*corev1.Pod)
	if p.Spec.Containers[0].Image != "wasm://embedded/other" || *p.Spec.ActiveDeadlineSeconds != 50 || len(p.Spec.Tolerations) != 2 || *p.Spec.Tolerations[0].TolerationSeconds != 9 || p.Labels["tier"] != "x" {
		t.Errorf("the allowed updates did not all apply: %+v", p.Spec)
	}
}
