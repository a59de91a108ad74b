package build

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// writePodProject writes a project of one C pod, name, whose directory gets
// the files (name -> content), with manifest as its app.yaml.
func writePodProject(t *testing.T, name string, cflags []string, files map[string]string, manifest string) string {
	t.Helper()
	dir := t.TempDir()
	yaml := "name: app\nmanifests: [app.yaml]\npods:\n  - name: " + name + "\n    language: c\n    source: pods/" + name + "\n"
	if len(cflags) > 0 {
		yaml += "    cflags: [" + strings.Join(quoteAll(cflags), ", ") + "]\n"
	}
	all := map[string]string{"kube32.yaml": yaml, "app.yaml": manifest}
	for f, content := range files {
		all[filepath.Join("pods", name, f)] = content
	}
	testenv.WriteFiles(t, dir, all)
	return dir
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = `"` + s + `"`
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBuildRefusesFeaturesNoBoardRuns(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	k32test := readFile(t, filepath.Join(testpods.Dir, "k32test.h"))
	for fixture, want := range map[string]string{
		"simd":    `function "vec_add" uses simd (v128.load)`,
		"atomics": `function "count_hit" uses threads (i32.atomic.rmw.add)`,
	} {
		t.Run(fixture, func(t *testing.T) {
			src := readFile(t, filepath.Join(testpods.RefusedDir, fixture+".c"))
			dir := writePodProject(t, fixture, testpods.RefusedFlags[fixture],
				map[string]string{"main.c": src, "k32test.h": k32test}, "")
			_, err := Build(context.Background(), dir, Options{})
			if err == nil {
				t.Fatal("Build succeeded")
			}
			for _, w := range []string{"pod " + fixture, want, "the boards' interpreter does not run it"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			t.Log(err)
		})
	}
}

// callerPod imports k32_http_call, which needs SERVICE_CALL.
const callerPod = `#include <stdint.h>
#include "k32test.h"
K32_EXPORT(k32_handle) int32_t k32_handle(void) {
	uint8_t resp[64];
	uint32_t n;
	return k32_http_call("GET", 3, "http://api/", 11, 0, 0, 0, 0, resp, sizeof resp, &n, 1000);
}
`

// Issue 30, item 9: each Pod that runs a module importing k32_http_call
// without adding SERVICE_CALL gets a build warning, even when another Pod
// running the same image adds it.
func TestBuildWarnsAboutEachPodMissingACapability(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	k32test := readFile(t, filepath.Join(testpods.Dir, "k32test.h"))
	var manifests []string
	for _, p := range []struct{ name, adds string }{{"a", "SERVICE_CALL"}, {"b", ""}, {"c", "CHANNEL_IPC"}} {
		m := "apiVersion: v1\nkind: Pod\nmetadata: {name: " + p.name + "}\nspec:\n  containers:\n    - name: caller\n      image: wasm://embedded/caller\n"
		if p.adds != "" {
			m += "      securityContext: {capabilities: {add: [" + p.adds + "]}}\n"
		}
		manifests = append(manifests, m)
	}
	dir := writePodProject(t, "caller", nil, map[string]string{"main.c": callerPod, "k32test.h": k32test}, strings.Join(manifests, "---\n"))
	res, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"pod caller imports k32_http_call but Pods default/b, default/c, which run wasm://embedded/caller, do not add capability SERVICE_CALL (securityContext.capabilities.add): its calls will return K32_ERR_PERM"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("Warnings = %q, want %q", res.Warnings, want)
	}
}

func TestBuildWarnsAboutAMissingCapability(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	pod := func(adds string) string {
		m := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: caller\nspec:\n  containers:\n    - name: caller\n      image: wasm://embedded/caller\n"
		if adds != "" {
			m += "      securityContext:\n        capabilities:\n          add: [" + adds + "]\n"
		}
		return m
	}
	k32test := readFile(t, filepath.Join(testpods.Dir, "k32test.h"))
	for _, tt := range []struct {
		adds string
		want []string
	}{
		{"", []string{"pod caller imports k32_http_call but no Pod running wasm://embedded/caller adds capability SERVICE_CALL (securityContext.capabilities.add): its calls will return K32_ERR_PERM"}},
		{"CHANNEL_IPC", []string{"pod caller imports k32_http_call but no Pod running wasm://embedded/caller adds capability SERVICE_CALL (securityContext.capabilities.add): its calls will return K32_ERR_PERM"}},
		{"SERVICE_CALL", nil},
	} {
		t.Run("adds "+tt.adds, func(t *testing.T) {
			dir := writePodProject(t, "caller", nil, map[string]string{"main.c": callerPod, "k32test.h": k32test}, pod(tt.adds))
			res, err := Build(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Warnings, tt.want) {
				t.Errorf("Warnings = %q, want %q", res.Warnings, tt.want)
			}
			// An up-to-date build warns the same.
			res, err = Build(context.Background(), dir, Options{})
			if err != nil || !res.Items[0].UpToDate || !slices.Equal(res.Warnings, tt.want) {
				t.Errorf("second build: %v, up to date %v, Warnings = %q", err, res != nil && res.Items[0].UpToDate, res.Warnings)
			}
		})
	}
}
