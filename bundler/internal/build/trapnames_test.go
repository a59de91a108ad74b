package build

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube32/kube32/host"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Issue 30, item 9: a plain build keeps the name section, so that the
// stack trace of a trap names the pod's functions (".explode_now()")
// rather than their indices (".$5()"): a C pod whose handler traps, built
// by kube32 build and run by the node's pod runtime.
func TestPlainBuildTrapTraceNamesFunctions(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{
		"kube32.yaml": "name: trap\npods:\n  - name: trap\n    language: c\n    source: pods/trap\n",
		"pods/trap/main.c": `#include "k32.h"

__attribute__((noinline)) static void explode_now(void) { __builtin_trap(); }

K32_EXPORT(k32_handle) int32_t k32_handle(void) {
    explode_now();
    return k32_respond(200, "text/plain", K32_STR("unreachable\n"));
}
`,
	})
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(filepath.Join(res.BuildDir, filepath.FromSlash(res.Items[0].Module)))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log []string
	p := host.NewPod(host.PodConfig{Namespace: "default", Name: "trap", Module: wasm, Log: func(l host.LogLine) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, l.Text)
	}})
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	srv := httptest.NewServer(p)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	testenv.Eventually(t, "the trap's stack trace in the pod's log", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(strings.Join(log, "\n"), "wasm stack trace")
	})
	mu.Lock()
	all := strings.Join(log, "\n")
	mu.Unlock()
	if !strings.Contains(all, ".explode_now()") || !strings.Contains(all, ".k32_handle()") || strings.Contains(all, ".$") {
		t.Errorf("the trap's stack trace does not name the functions:\n%s", all)
	}
}
