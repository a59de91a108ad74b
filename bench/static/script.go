package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// goScripts are real JavaScript shipped with Go, relative to GOROOT.
var goScripts = []string{
	"src/cmd/vendor/github.com/google/pprof/internal/driver/html/common.js",
	"src/cmd/vendor/github.com/google/pprof/internal/driver/html/stacks.js",
	"lib/wasm/wasm_exec.js",
	"src/cmd/vendor/github.com/google/pprof/third_party/svgpan/svgpan.js",
	"src/internal/trace/traceviewer/static/webcomponents.min.js",
}

// script is n bytes of realistic JavaScript: Go's own scripts one after the
// other, or, without them, a generated stand-in.
func script(n int) ([]byte, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	var b bytes.Buffer
	for _, f := range goScripts {
		if data, err := os.ReadFile(filepath.Join(goroot, filepath.FromSlash(f))); err == nil {
			b.Write(data)
			b.WriteByte('\n')
		}
	}
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "function handler%d(event) { const el = document.getElementById('item-%d'); if (el) { el.classList.toggle('active'); } return %d; }\n", i, i%97, i)
	}
	return b.Bytes()[:n], nil
}
