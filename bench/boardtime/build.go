package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/compile"
)

// here is this program's folder, whose spin/ holds the CPU-heavy pod.
func here() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Dir(self)
}

// root is the repository's.
func root() string { return filepath.Join(here(), "..", "..") }

// spinManifest is the CPU-heavy pod's Pod, Service and Ingress (/spin).
func spinManifest() string { return filepath.Join(here(), "spin", "spin.yaml") }

// echoManifest is examples/echo's (/echo).
func echoManifest() string { return filepath.Join(root(), "examples", "echo", "echo.yaml") }

// manifests are the objects of both pods.
func manifests() ([]manifest.Object, error) {
	return manifest.DecodeFiles([]string{echoManifest(), spinManifest()})
}

// buildPods compiles the echo pod (examples/echo) and spin.c with clang,
// as `kube32 build` compiles a C pod, into a new image tree holding
// wasm://embedded/echo and wasm://embedded/spin.
func buildPods() (string, error) {
	dir, err := os.MkdirTemp("", "kube32-bench-boardtime")
	if err != nil {
		return "", err
	}
	wasmDir := filepath.Join(dir, "firmware", "images", "wasm")
	if err := os.MkdirAll(wasmDir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	for name, src := range map[string]string{
		"echo": filepath.Join(root(), "examples", "echo", "pods", "echo", "echo.c"),
		"spin": filepath.Join(here(), "spin", "spin.c"),
	} {
		args := append([]string{}, compile.BaseCFlags...)
		args = append(args, "-Wl,--initial-memory=65536", "-I"+filepath.Join(root(), "sdk", "c"),
			"-o", filepath.Join(wasmDir, name+".wasm"), src)
		if out, err := exec.Command("clang", args...).CombinedOutput(); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("clang %s: %v\n%s", src, err, out)
		}
	}
	return dir, nil
}
