package testenv

import (
	"fmt"
	"os"
	"path/filepath"
)

// ToolCacheDir is the folder name of the cache of tools the tests install
// or build once for every run (a compiler, a Kubernetes control plane):
// under $env when that is set (CI may point it at its cache), else under
// the user cache directory's kube32.
func ToolCacheDir(env, name string) (string, error) {
	if d := os.Getenv(env); d != "" {
		return filepath.Join(d, name), nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache directory: %w", err)
	}
	return filepath.Join(base, "kube32", name), nil
}
