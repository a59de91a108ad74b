package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// mixSize is the size of the generated page.
const mixSize = 200 << 10

// bundleGlobs find the repository's web files: StaticBundles and pod
// assets of the examples and of the `kube32 new` templates.
var bundleGlobs = []string{
	"examples/*/site",
	"examples/*/pods/*/web",
	"templates/*/site",
	"templates/*/images/firmware/images/web/*",
}

// defaultInputs are the repository's web files (each content once: the
// demo template holds copies of examples/demo/site) and the generated page.
func defaultInputs() ([]input, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	var out []input
	seen := map[string]bool{}
	for _, g := range bundleGlobs {
		dirs, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		for _, d := range dirs {
			in, err := readDir(d)
			if err != nil {
				return nil, err
			}
			for _, i := range in {
				if seen[string(i.data)] {
					continue
				}
				seen[string(i.data)] = true
				if rel, err := filepath.Rel(root, filepath.FromSlash(i.name)); err == nil {
					i.name = filepath.ToSlash(rel)
				}
				out = append(out, i)
			}
		}
	}
	mix, err := mixPage()
	if err != nil {
		return nil, err
	}
	return append(out, input{"generated/mix-200k.html", mix}), nil
}

// repoRoot is the directory of go.mod, as `go run` is run from the module.
func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from the kube32 module, or give directories")
	}
	return filepath.Dir(mod), nil
}

// goFiles are real CSS, JavaScript and HTML shipped with Go, relative to
// GOROOT: a minified library, hand-written scripts and styles, and prose.
var goFiles = []string{
	"src/cmd/vendor/github.com/google/pprof/internal/driver/html/common.css",
	"src/internal/trace/traceviewer/static/webcomponents.min.js",
	"src/cmd/vendor/github.com/google/pprof/internal/driver/html/common.js",
	"src/cmd/vendor/github.com/google/pprof/internal/driver/html/stacks.js",
	"lib/wasm/wasm_exec.js",
	"doc/go_mem.html",
	"doc/asm.html",
}

// mixPage builds a single-page-app-like HTML page of mixSize bytes: styles,
// then scripts, then a document body, taken in turns from the Go
// distribution's files so that it is realistic and the same for every run
// with one Go version. Without GOROOT's files it falls back to synthetic
// text (and says so on stderr).
func mixPage() ([]byte, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	var css, js, html bytes.Buffer
	for _, f := range goFiles {
		data, err := os.ReadFile(filepath.Join(goroot, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		switch filepath.Ext(f) {
		case ".css":
			css.Write(data)
		case ".js":
			js.Write(data)
		default:
			html.Write(data)
		}
	}
	if css.Len()+js.Len()+html.Len() == 0 {
		fmt.Fprintln(os.Stderr, "bench/compress: no CSS/JS/HTML under GOROOT; the generated page is synthetic")
		return synthetic(), nil
	}
	// A third of each kind, as far as each goes; the rest from the others.
	var page bytes.Buffer
	page.WriteString("<!doctype html>\n<html><head><meta charset=utf-8><title>mix</title>\n<style>\n")
	page.Write(take(&css, mixSize/3))
	page.WriteString("\n</style>\n<script>\n")
	page.Write(take(&js, mixSize/3))
	page.WriteString("\n</script>\n</head><body>\n")
	for _, b := range []*bytes.Buffer{&html, &js, &css} {
		page.Write(take(b, mixSize-page.Len()-len("\n</body></html>\n")))
	}
	page.WriteString("\n</body></html>\n")
	return page.Bytes(), nil
}

// take removes up to n bytes from the front of b.
func take(b *bytes.Buffer, n int) []byte {
	if n <= 0 {
		return nil
	}
	return b.Next(n)
}

// synthetic is a deterministic stand-in page of mixSize bytes.
func synthetic() []byte {
	words := strings.Fields("const let function return if else for while div span class style color margin padding the a of to and kube32 pod bundle ingress")
	var b bytes.Buffer
	x := uint32(1)
	for b.Len() < mixSize {
		x = x*1664525 + 1013904223
		b.WriteString(words[x>>24%uint32(len(words))])
		if x&7 == 0 {
			b.WriteString(";\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:mixSize]
}
