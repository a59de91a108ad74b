// Command regenerate rebuilds examples/demo and writes the snapshot that
// package demo embeds. Run it with `go generate ./templates/demo`.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/kube32/kube32/templates/demo/internal/snapshot"
)

func main() {
	files, err := snapshot.Files(context.Background(), "../../examples/demo", os.Stderr)
	if err == nil {
		err = snapshot.Write(snapshot.Archive, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "regenerate demo:", err)
		os.Exit(1)
	}
}
