package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// Bundles and asset folders are copied into the firmware and served: one
// outside the project, however it is reached, is refused, naming the field.
func TestBundledFoldersStayInsideTheProject(t *testing.T) {
	outside := t.TempDir()
	testenv.WriteFiles(t, outside, map[string]string{"secret/passwd": "root:x:0:0"})
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, map[string]string{"site/index.html": "hi", "web/dist/index.html": "hi", "pod/main.c": ""})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("web", "dist"), filepath.Join(dir, "dist")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "web", "dist"), filepath.Join(dir, "abs")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	cases := []struct {
		name, yaml string
		want       []string // "" when the project loads
	}{
		{"absolute", "bundles: [{name: s, dir: " + secret + "}]",
			[]string{"kube32.yaml: bundles[0].dir: " + secret + " is outside the project directory " + dir}},
		{"dot-dot", "bundles: [{name: s, dir: ../" + filepath.Base(outside) + "/secret}]",
			[]string{"bundles[0].dir: ../", "is outside the project directory"}},
		{"link out", "bundles: [{name: s, dir: out/}]",
			[]string{"kube32.yaml: bundles[0].dir: out/ leads out of the project directory", "(to " + secret + ")"}},
		{"assets out", "pods: [{name: p, language: c, source: pod, assets: out}]",
			[]string{"kube32.yaml: pods[0].assets: out leads out of the project directory"}},
		{"absolute link", "bundles: [{name: s, dir: abs}]",
			[]string{"kube32.yaml: bundles[0].dir: abs is reached through an absolute symbolic link (to " + filepath.Join(dir, "web", "dist") + ")"}},
		{"inside", "bundles: [{name: s, dir: site}, {name: d, dir: dist}, {name: a, dir: " + filepath.Join(dir, "web") + "}]", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse(dir, []byte("name: app\n"+c.yaml+"\n"))
			if c.want == nil {
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("parse accepted a folder outside the project")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
