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
	admitsImages(t, map[string]string{"chan": "wasm://embedded/chan_pod", "dotted": "wasm://sd/echo.v2"},
		"wasm://embedded/Chan_Pod", "spec.containers[0].image")
}

// Issue 21, item 4: the API admits OCI references, which a node pulls
// (docs/oci.md), and refuses a reference that is neither wasm:// nor OCI
// with both forms named.
func TestAPIAdmitsOCIReferences(t *testing.T) {
	admitsImages(t, map[string]string{"tagged": "127.0.0.1:5000/app/echo:v1", "latest": "ghcr.io/acme/echo"},
		"nginx:1.27", "a kube32 image is wasm://embedded/", "or an OCI reference")
}

// admitsImages creates a pod of each image of admitted (by pod name), which
// the API must admit, and one of image refused, which it must refuse with
// 422 and an error holding each of want.
func admitsImages(t *testing.T, admitted map[string]string, refused string, want ...string) {
	t.Helper()
	srv, _ := bareServer(t, store.New(), "")
	pods := srv.URL + "/api/v1/namespaces/default/pods"
	for name, image := range admitted {
		body := strings.NewReplacer(`"web"`, `"`+name+`"`, "wasm://embedded/echo", image).Replace(goodPod)
		if code, out := send(t, "POST", pods, "application/json", body); code != 201 {
			t.Errorf("creating a pod of image %s: %d %s", image, code, out)
		}
	}
	body := strings.NewReplacer(`"web"`, `"bad"`, "wasm://embedded/echo", refused).Replace(goodPod)
	code, out := send(t, "POST", pods, "application/json", body)
	if code != 422 {
		t.Errorf("creating a pod of image %s: %d %s, want 422", refused, code, out)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("creating a pod of image %s: %s, want an error holding %q", refused, out, w)
		}
	}
}
