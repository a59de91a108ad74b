// Package repo finds the kube32 repository the bench programs run in.
package repo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Root is the directory of the go.mod of the module that the current
// directory is in: the repository, when run as `go run ./bench/NAME`.
func Root() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from the kube32 repository")
	}
	return filepath.Dir(mod), nil
}
