package cli_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/witgo"
)

// `kube32 wit` prints the WIT package of the ABI at the ABI's version, and
// --out DIR writes it as DIR/k32.wit, a WIT directory for binding
// generators (docs/components.md).
func TestWitPrintsTheABIPackageAtTheABIVersion(t *testing.T) {
	code, out := run(t, "wit")
	if code != 0 {
		t.Fatalf("wit: exit %d: %s", code, out)
	}
	if out != string(abi.WIT) {
		t.Errorf("kube32 wit does not print abi/k32.wit:\n%s", out)
	}
	if want := "package kube32:app@" + abi.Version + ";"; !strings.Contains(out, want) {
		t.Errorf("kube32 wit lacks %q", want)
	}
	dir := filepath.Join(t.TempDir(), "wit")
	if code, out := run(t, "wit", "--out", dir); code != 0 {
		t.Fatalf("wit --out: exit %d: %s", code, out)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "k32.wit")); err != nil || !bytes.Equal(got, abi.WIT) {
		t.Errorf("wit --out wrote %d bytes (%v), want abi/k32.wit", len(got), err)
	}
}

// callerMain is a pod on the generated bindings that answers what the
// Service b answers it: a k32_http_call through package k32.
const callerMain = `package main

import (
	"unsafe"

	"kube32.io/wit/kube32/app/k32"
	"kube32.io/wit/kube32/app/pod"
)

func init() { pod.Exports.K32Handle = handle }

func ptr(b []byte) k32.Ptr { return k32.Ptr(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) }

func handle() int32 {
	method, url := []byte("GET"), []byte("http://b/")
	resp := make([]byte, 4096)
	var n uint32
	status := k32.K32HTTPCall(ptr(method), uint32(len(method)), ptr(url), uint32(len(url)), 0, 0, 0, 0,
		ptr(resp), uint32(len(resp)), k32.Ptr(uintptr(unsafe.Pointer(&n))), 0)
	if status < 0 {
		k32.K32RespStatus(502)
		msg := []byte("k32-http-call failed")
		k32.K32RespWrite(ptr(msg), uint32(len(msg)))
		return 0
	}
	k32.K32RespStatus(uint32(status))
	k32.K32RespWrite(ptr(resp), n)
	return 0
}

func main() {}
`

// The done-when of docs/components.md: Go bindings generated from `kube32
// wit` with wit-bindgen-go build pods that kube32 serves. Pod b is the
// go-wit template; pod a, added with the same template, calls Service b with
// k32_http_call through the bindings (docs/calls.md) and answers b's body.
func TestGoWitPodsServeAndCallEachOtherThroughTheGeneratedBindings(t *testing.T) {
	newApp(t, "go-wit", "b")
	if code, out := run(t, "add", "pod", "a", "--template", "go-wit", "--dir", "b"); code != 0 {
		t.Fatalf("add: exit %d: %s", code, out)
	}
	writeFile(t, filepath.Join("b", "pods", "a", "main.go"), callerMain)
	manifest := filepath.Join("b", "manifests", "a.yaml")
	m, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	image := "      image: wasm://embedded/a\n"
	if !strings.Contains(string(m), image) {
		t.Fatalf("%s lacks %q:\n%s", manifest, image, m)
	}
	writeFile(t, manifest, strings.Replace(string(m), image, image+"      securityContext:\n        capabilities:\n          add: [\"SERVICE_CALL\"]\n", 1))

	if code, out := run(t, "build", "b"); code != 0 {
		t.Fatalf("build: exit %d: %s", code, out)
	}
	// The bindings the build compiled are those wit-bindgen-go makes from
	// the output of kube32 wit.
	witDir := filepath.Join(t.TempDir(), "wit")
	if code, out := run(t, "wit", "--out", witDir); code != 0 {
		t.Fatalf("wit --out: exit %d: %s", code, out)
	}
	src, err := os.ReadFile(filepath.Join(witDir, "k32.wit"))
	if err != nil {
		t.Fatal(err)
	}
	fromWit := t.TempDir()
	if _, err := witgo.Generate(src, fromWit); err != nil {
		t.Fatal(err)
	}
	if diff := compareTrees(t, fromWit, filepath.Join("b", ".kube32", "wit", "go")); diff != "" {
		t.Errorf("the build's bindings differ from those generated from kube32 wit: %s", diff)
	}

	c, _ := serve(t, "b")
	const bBody = "hello from b\nGET /\n"
	if status, _, body := get(t, c.IngressURL()+"/"); status != 200 || body != bBody {
		t.Errorf("GET /: %d %q, want 200 %q", status, body, bBody)
	}
	if status, _, body := get(t, c.IngressURL()+"/a/"); status != 200 || body != bBody {
		t.Errorf("GET /a/ (pod a calls http://b/): %d %q, want 200 %q", status, body, bBody)
	}
}

// compareTrees returns "" when the files of dirs want and got are the same
// (ignoring got's build stamp), else what differs.
func compareTrees(t *testing.T, want, got string) string {
	t.Helper()
	read := func(root string) map[string]string {
		files := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == ".kube32-wit" {
				return err
			}
			data, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	w, g := read(want), read(got)
	if len(w) == 0 {
		return "no files generated"
	}
	for name, content := range w {
		if g[name] != content {
			return name + " differs or is missing"
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			return name + " is extra"
		}
	}
	return ""
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A go-wit pod works with the Go toolchain itself (go vet for wasip1 and
// for the machine, and so gopls) right after `kube32 new`, through its
// go.mod's replace of the bindings that kube32 new writes.
func TestGoWitTemplateWorksWithTheGoToolchain(t *testing.T) {
	newApp(t, "go-wit", "hello")
	if _, err := os.Stat(filepath.Join("hello", ".kube32", "wit", "go", "kube32", "app", "k32")); err != nil {
		t.Fatalf("kube32 new wrote no bindings: %v", err)
	}
	pod := filepath.Join("hello", "pods", "hello")
	goTool(t, pod, []string{"GOOS=wasip1", "GOARCH=wasm"}, "vet", "./...")
	goTool(t, pod, nil, "vet", "./...")
}
