// Command logflood measures what a pod that logs in a loop costs `kube32
// serve`'s output: it serves a project with one C pod
// (internal/testpods/c/logflood.c), asks it for -lines lines of -bytes
// bytes, and prints how many bytes reached serve's stderr.
//
//	go run ./bench/faults/logflood [-lines 25600] [-bytes 4096]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/bench/internal/load"
	"github.com/kube32/kube32/cli"
	"github.com/kube32/kube32/internal/testpods"
)

func main() {
	lines := flag.Int("lines", 25600, "lines the pod writes")
	size := flag.Int("bytes", 4096, "bytes of each line, newline included")
	flag.Parse()
	if err := run(*lines, *size); err != nil {
		fmt.Fprintln(os.Stderr, "logflood:", err)
		os.Exit(1)
	}
}

const project = `name: logflood
manifests: [flood.yaml]
pods:
  - name: flood
    language: c
    source: pods/flood
`

const manifest = `apiVersion: v1
kind: Pod
metadata:
  name: flood
  namespace: default
spec:
  containers:
    - name: flood
      image: wasm://embedded/flood
`

// counter counts the bytes written to it.
type counter struct{ n atomic.Int64 }

func (c *counter) Write(p []byte) (int, error) { c.n.Add(int64(len(p))); return len(p), nil }

func run(lines, size int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "kube32-logflood")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, err := os.ReadFile(filepath.Join(testpods.Dir, "logflood.c"))
	if err != nil {
		return err
	}
	files := map[string]string{"kube32.yaml": project, "flood.yaml": manifest, "pods/flood/logflood.c": string(src)}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	var stderr counter
	c, err := load.Serve(ctx, cli.ServeOptions{
		IO:       cli.IOStreams{In: os.Stdin, Out: io.Discard, ErrOut: &stderr},
		Dir:      dir,
		CacheDir: filepath.Join(dir, "cache"),
	})
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/?%d,%d", c.PodURL(), lines, size), nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Kube32-Pod", "default/flood")
	before := stderr.n.Load()
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if want := fmt.Sprintf("written=%d", lines); resp.StatusCode != http.StatusOK || strings.TrimSpace(string(body)) != want {
		return fmt.Errorf("the pod answered %d %q, want %s", resp.StatusCode, body, want)
	}
	// The marker of the last drops comes a second after them.
	time.Sleep(2 * time.Second)
	fmt.Printf("%-60s %s\n", "fault", "kube32")
	fmt.Printf("%-60s %d bytes (pod wrote %d in %v)\n", fmt.Sprintf("serve's output under a log flood of %d lines of %d B", lines, size),
		stderr.n.Load()-before, lines*size, took.Round(time.Millisecond))
	return nil
}
