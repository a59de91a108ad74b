package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/store"
)

// TestPodStreamsRefuseWhatTheyCannotServe: port-forward without an upgrade,
// or to a pod that does not run, and exec on any pod answer a Status with
// the reason; a pod that does not exist is 404.
func TestPodStreamsRefuseWhatTheyCannotServe(t *testing.T) {
	s := store.New()
	srv, client := bareServer(t, s, "")
	if _, err := client.CoreV1().Pods("default").Create(context.Background(), testPod("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	base := srv.URL + "/api/v1/namespaces/default/pods/"
	for _, tt := range []struct {
		method, path string
		code         int
		want         string
	}{
		{"POST", "web/portforward", http.StatusBadRequest, "is not running (phase Pending)"},
		{"POST", "web/exec?command=sh", http.StatusBadRequest, "exec is not possible: a kube32 pod is a WebAssembly module with no shell"},
		{"POST", "web/attach", http.StatusBadRequest, "attach is not possible"},
		{"POST", "nope/exec", http.StatusNotFound, `pods \"nope\" not found`},
		{"POST", "nope/portforward", http.StatusNotFound, `pods \"nope\" not found`},
	} {
		req, _ := http.NewRequest(tt.method, base+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || !strings.Contains(string(body), tt.want) || !strings.Contains(string(body), `"kind":"Status"`) {
			t.Errorf("%s %s: %d %s, want %d with %q", tt.method, tt.path, resp.StatusCode, body, tt.code, tt.want)
		}
	}

	s.Update(store.Key{Kind: "Pod", Namespace: "default", Name: "web"}, func(o runtime.Object) bool {
		o.(*corev1.Pod).Status.Phase = corev1.PodRunning
		return true
	})
	resp, err := http.Post(base+"web/portforward", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "needs a connection upgrade") {
		t.Errorf("port-forward without an upgrade: %d %s", resp.StatusCode, body)
	}
}
