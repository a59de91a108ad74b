// Command abigen writes the files generated from the tables of package abi
// (the C header, docs/abi.md, docs/limits.md and docs/boards.md). "go generate ./abi" runs it in abi/, so -root
// defaults to the repository root seen from there.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kube32/kube32/abi/internal/gen"
)

func main() {
	root := flag.String("root", "..", "repository root to write the generated files under")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "abigen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	files, err := gen.Files()
	if err != nil {
		return err
	}
	for _, f := range files {
		path := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
