package cli_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testjco"
	"github.com/kube32/kube32/internal/testkit/testmanifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// witProject writes a project whose one pod is the prebuilt wasm (language
// wasm) behind a Service and an Ingress at /wit.
func witProject(t *testing.T, wasm []byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wit")
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml": "name: wit\nmanifests: [wit.yaml]\npods:\n  - name: wit\n    language: wasm\n    source: prebuilt/wit.wasm\n",
		"wit.yaml": testmanifest.Docs(
			testmanifest.PinnedPod("default/wit", "wit", `{node-role.kubernetes.io/control-plane: ""}`,
				"env: [{name: WIT_GREETING, value: hi}]", "resources: {limits: {memory: 64Ki}}"),
			testmanifest.Service("default/wit"),
			testmanifest.Ingress("default/wit", testmanifest.Path("/wit", testmanifest.ToService("wit")))),
		"prebuilt/wit.wasm": string(wasm),
	})
	return dir
}

// importLine is an import of `wasm-objdump -x`: "<- module.name".
var importLine = regexp.MustCompile(`<- ([^.\s]+)\.`)

// Rule (docs/components.md, "Prebuilt modules and components"): a C pod
// that imports the WIT names, wrapped into a component of world
// kube32:app/pod by jco, is unwrapped, lowered and served; the built module
// imports only k32 and WASI. With WASI imports, jco adds its WASI preview 1
// adapter, which the build leaves out.
func TestServeComponentOfWorldPod(t *testing.T) {
	objdump := testenv.Tool(t, "wasm-objdump")
	for _, tc := range []struct {
		name    string
		flags   []string
		adapter testjco.Adapter
	}{
		{"no WASI", nil, testjco.NoAdapter},
		{"WASI preview 1 adapter", []string{"-DWIT_WASI"}, testjco.Reactor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			core := testpods.C(t, "../internal/testkit/testpods/c/witnames.c", 64<<10, tc.flags...)
			comp := testjco.Component(t, "../abi/k32.wit", "pod", core, tc.adapter)
			dir := witProject(t, comp)
			if code := cli.Run(context.Background(), []string{"build", dir}, cli.IOStreams{Out: io.Discard, ErrOut: os.Stderr}); code != 0 {
				t.Fatalf("kube32 build exited %d", code)
			}

			built := filepath.Join(dir, "build", "firmware", "images", "wasm", "wit.wasm")
			out, err := exec.Command(objdump, "-x", built).CombinedOutput()
			if err != nil {
				t.Fatalf("wasm-objdump -x: %v\n%s", err, out)
			}
			modules := map[string]bool{}
			for _, m := range importLine.FindAllStringSubmatch(string(out), -1) {
				modules[m[1]] = true
			}
			wantWASI := tc.adapter != testjco.NoAdapter
			want := 1
			if wantWASI {
				want = 2
			}
			if len(modules) != want || !modules["k32"] || modules["wasi_snapshot_preview1"] != wantWASI {
				t.Errorf("the built module imports from %v, want k32 (and WASI: %v):\n%s", modules, wantWASI, out)
			}
			for _, export := range []string{`-> "k32_handle"`, `-> "k32_init"`, `-> "_initialize"`} {
				if !strings.Contains(string(out), export) {
					t.Errorf("wasm-objdump -x shows no export %s:\n%s", export, out)
				}
			}

			c, _ := serve(t, dir)
			status, _, body := get(t, c.IngressURL()+"/wit/hello")
			if want := "wit names, inits=1 path=/wit/hello greeting=hi\n"; status != 200 || body != want {
				t.Fatalf("GET /wit/hello = %d %q, want 200 %q", status, body, want)
			}
		})
	}
}

// Rule: kube32 build refuses a component with a second core module or an
// import of an unknown interface, naming it.
func TestBuildRefusesComponentsACoreModuleCannotBe(t *testing.T) {
	const pod = `(core module $pod (memory (export "memory") 1) (func (export "k32-handle") (result i32) i32.const 0))`
	for name, tc := range map[string]struct{ wat, want string }{
		"second core module": {"(component " + pod + " (core module $helper))", `a second core module (core module 1 "helper"`},
		"unknown interface":  {`(component (import "wasi:keyvalue/store@0.2.0" (instance)) ` + pod + ")", "wasi:keyvalue/store@0.2.0"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := witProject(t, testjco.Parse(t, tc.wat))
			code, out := run(t, "build", dir)
			if code == 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "pod wit") {
				t.Fatalf("kube32 build: exit %d, want a failure naming pod wit and %q:\n%s", code, tc.want, out)
			}
		})
	}
}
