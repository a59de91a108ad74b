package manifest

import (
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDecodeValidManifests(t *testing.T) {
	objs, err := DecodeFiles([]string{"../../../examples/echo/echo.yaml", "testdata/valid-bundle.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key())
	}
	want := "Pod default/echo,Service default/echo,Ingress default/echo,StaticBundle default/site,Namespace shop"
	if got := strings.Join(keys, ","); got != want {
		t.Fatalf("objects = %s, want %s", got, want)
	}
	if objs[3].Doc != 2 {
		t.Errorf("StaticBundle document = %d, want 2 (the comment-only document counts)", objs[3].Doc)
	}
	pod := objs[0].Obj.(*corev1.Pod)
	if got := pod.Spec.Containers[0].Env[0].Value; got != "hello from echo" {
		t.Errorf("GREETING = %q", got)
	}
}

// Each invalid manifest names the file, the document, the object and the field.
func TestDecodeInvalidManifests(t *testing.T) {
	cases := []struct {
		file string
		want []string
	}{
		{"invalid-unknown-field.yaml", []string{"document 2", "(Pod default/typo)", `unknown field "spec.contaners"`}},
		{"invalid-image.yaml", []string{"document 1", "(Pod shop/web)", "spec.containers[0].image", "wasm://embedded/<name>"}},
		{"invalid-memory.yaml", []string{"(Pod default/tiny)", "spec.containers[0].resources.limits[memory]", "at least 64Ki"}},
		{"invalid-quantity.yaml", []string{"(Pod default/bad)", `spec.containers[0].resources.limits.memory: "lots"`, "quantities must match"}},
		{"invalid-kind.yaml", []string{"(Deployment web)", "kind", "not served by kube32"}},
		{"invalid-yaml.yaml", []string{"document 1"}},
		{"invalid-port-type.yaml", []string{"(Service default/svc)", "spec.ports.port"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", c.file)
			_, err := DecodeFile(path)
			if err == nil {
				t.Fatal("decoded without error")
			}
			msg := err.Error()
			for _, w := range append([]string{path + ":"}, c.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestMemoryLimitsTakesTheSmallest(t *testing.T) {
	objs, err := Decode("m.yaml", []byte(`
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c, image: "wasm://embedded/x", resources: {limits: {memory: 128Ki}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c, image: "wasm://embedded/x", resources: {limits: {memory: 64Ki}}}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := MemoryLimits(objs)["wasm://embedded/x"]
	if got.Bytes != 64*1024 || strings.Join(got.Pods, ",") != "default/a,default/b" {
		t.Fatalf("limit = %+v", got)
	}
}
