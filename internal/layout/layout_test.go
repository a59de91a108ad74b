// Package layout holds the tests of the module's shape that docs/design.md
// promises: what other modules may import, and which arrows of the import
// graph must not exist.
package layout

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kube32/kube32"

type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
	Deps       []string // every package it imports, directly or not
	Dir        string
	// GoFiles, TestGoFiles and XTestGoFiles are the package's files, in Dir.
	GoFiles, TestGoFiles, XTestGoFiles []string
}

// packages lists the module's packages with their imports (not their
// tests').
func packages(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		p.ImportPath = strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found %d packages: not run inside the module?", len(pkgs))
	}
	return pkgs
}

// The public surface (docs/design.md, "The public surface"): besides the
// contract (abi, the SDKs, host/apis) and what is public by nature
// (templates, examples, bench), other modules may import only the CLI and
// the two facades; everything else is under an internal/ folder.
func TestOnlyTheFacadesAreImportable(t *testing.T) {
	var importable []string
	for _, p := range packages(t) {
		path := p.ImportPath
		if p.Name == "main" || path == "internal" || strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") {
			continue
		}
		top, _, _ := strings.Cut(path, "/")
		if slices.Contains([]string{"abi", "sdk", "templates", "examples", "bench"}, top) || path == "host/apis" || strings.HasPrefix(path, "host/apis/") {
			continue
		}
		importable = append(importable, path)
	}
	if want := []string{"bundler", "cli", "host"}; !slices.Equal(importable, want) {
		t.Errorf("importable packages %q, want %q", importable, want)
	}
}

// Arrows that must not exist (docs/design.md, "How they depend on each
// other"): the store sits below admission; NetworkPolicy evaluation is asked
// by the node's edge alone; abi imports nothing of the module.
func TestForbiddenImports(t *testing.T) {
	pkgs := packages(t)
	importers := map[string][]string{}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				importers[rest] = append(importers[rest], p.ImportPath)
			}
		}
	}
	if got := importers["host/internal/netpol"]; !slices.Equal(got, []string{"host/internal/outbound"}) {
		t.Errorf("host/internal/netpol is imported by %q, want only host/internal/outbound", got)
	}
	for _, p := range pkgs {
		for _, imp := range p.Imports {
			imp, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			switch {
			case p.ImportPath == "host/internal/store" && strings.HasPrefix(imp, "host/internal/admission"):
				t.Errorf("the store imports %s", imp)
			case p.ImportPath == "abi" || (strings.HasPrefix(p.ImportPath, "abi/") && !strings.HasPrefix(p.ImportPath, "abi/internal")):
				if imp != "abi" && !strings.HasPrefix(imp, "abi/") {
					t.Errorf("%s imports %s: abi imports nothing of the module but itself", p.ImportPath, imp)
				}
			}
		}
	}
}

// The HTTP rules the Ingress and port-forward share with the pod runtime
// (the reserved cookies, a body in memory, slow clients) live below all
// three (docs/design.md, "How they depend on each other"), so that neither
// pulls in the pod runtime or, with it, wazero.
func TestProxiesDoNotImportThePodRuntime(t *testing.T) {
	found := 0
	for _, p := range packages(t) {
		if p.ImportPath != "host/internal/ingress" && p.ImportPath != "host/internal/portforward" {
			continue
		}
		found++
		for _, dep := range p.Deps {
			if dep == module+"/host/internal/pod" || dep == "github.com/tetratelabs/wazero" || strings.HasPrefix(dep, "github.com/tetratelabs/wazero/") {
				t.Errorf("%s imports %s", p.ImportPath, dep)
			}
		}
	}
	if found != 2 {
		t.Fatalf("found %d of host/internal/ingress and host/internal/portforward", found)
	}
}
