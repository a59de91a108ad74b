package apiserver_test

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/host/internal/store"
)

// Issue 19, item 1: the API admits image names with '_' and '.' (one safe
// path element, abi/images' one rule), as it did before admission was
// unified, and still refuses a name that is not one.
func TestAPIAdmitsImageNamesWithUnderscoreAndDot(t *testing.T) {
	srv, _ := bareServer(t, store.New(), "")
	pods := srv.URL + "/api/v1/namespaces/default/pods"
	for name, image := range map[string]string{"chan": "wasm://embedded/chan_pod", "dotted": "wasm://sd/echo.v2"} {
		body := strings.NewReplacer(`"web"`, `"`+name+`"`, "wasm://embedded/echo", image).Replace(goodPod)
		if code, out := send(t, "POST", pods, "application/json", body); code != 201 {
			t.Errorf("creating a pod of image %s: %d %s", image, code, out)
		}
	}
	body := strings.NewReplacer(`"web"`, `"bad"`, "wasm://embedded/echo", "wasm://embedded/Chan_Pod").Replace(goodPod)
	if code, out := send(t, "POST", pods, "application/json", body); code != 422 || !strings.Contains(out, "spec.containers[0].image") {
		t.Errorf("creating a pod of image wasm://embedded/Chan_Pod: %d %s, want 422 on its image", code, out)
	}
}

// Issue 21, item 4: the API admits OCI references, which a node pulls
// (docs/oci.md), and refuses a reference that is neither wasm:// nor OCI
// with both forms named.
func TestAPIAdmitsOCIReferences(t *testing.T) {
	srv, _ := bareServer(t, store.New(), "")
	pods := srv.URL + "/api/v1/namespaces/default/pods"
	for name, image := range map[string]string{"tagged": "127.0.0.1:5000/app/echo:v1", "latest": "ghcr.io/acme/echo"} {
		body := strings.NewReplacer(`"web"`, `"`+name+`"`, "wasm://embedded/echo", image).Replace(goodPod)
		if code, out := send(t, "POST", pods, "application/json", body); code != 201 {
			t.Errorf("creating a pod of image %s: %d %s", image, code, out)
		}
	}
	body := strings.NewReplacer(`"web"`, `"bad"`, "wasm://embedded/echo", "nginx:1.27").Replace(goodPod)
	if code, out := send(t, "POST", pods, "application/json", body); code != 422 || !strings.Contains(out, "a kube32 image is wasm://embedded/") || !strings.Contains(out, "or an OCI reference") {
		t.Errorf("creating a pod of image nginx:1.27: %d %s, want 422 naming both forms", code, out)
	}
}
