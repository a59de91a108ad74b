package compile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	assdk "github.com/kube32/kube32/sdk/assemblyscript"
)

// asJob is an AssemblyScript pod in a project folder of its own.
func asJob(t *testing.T) Job {
	t.Helper()
	root := t.TempDir()
	testenv.WriteFiles(t, root, map[string]string{"pods/api/main.ts": "export function k32_handle(): i32 { return 0; }\n"})
	return Job{Name: "api", Language: langAssemblyScript.Name, SourceDir: filepath.Join(root, "pods", "api"), RootDir: root, CacheDir: filepath.Join(root, "build", ".cache")}
}

// Issue 32: without asc (no assemblyscript in the pod's node_modules or
// above it, none on PATH) the build fails naming the command that installs
// it; an asc of another series is refused the same way.
func TestAssemblyScriptWithoutASCNamesTheInstallCommand(t *testing.T) {
	node := testenv.Tool(t, "node")
	t.Setenv("PATH", filepath.Dir(node)) // node, and no asc but what npm installs in the project
	if _, err := os.Stat(filepath.Join(filepath.Dir(node), "asc")); err == nil {
		t.Skip("asc is installed beside node")
	}
	job := asJob(t)
	_, err := Compile(context.Background(), job)
	if err == nil || !strings.Contains(err.Error(), "building pod api: asc (npm's assemblyscript "+assdk.Version+") not found") ||
		!strings.Contains(err.Error(), "npm install --save-exact assemblyscript@"+assdk.Version) {
		t.Errorf("Compile without asc: %v, want the install command", err)
	}

	testenv.WriteFiles(t, job.RootDir, map[string]string{
		"node_modules/assemblyscript/package.json": `{"name": "assemblyscript", "version": "0.27.31"}`,
	})
	_, err = Compile(context.Background(), job)
	if err == nil || !strings.Contains(err.Error(), "asc 0.27.31 in "+filepath.Join(job.RootDir, "node_modules", "assemblyscript")+": kube32 takes assemblyscript 0.28.x") ||
		!strings.Contains(err.Error(), "npm install --save-exact") {
		t.Errorf("Compile with asc 0.27: %v, want a refusal with the install command", err)
	}
}

// The pod's node_modules is its toolchain, not its sources: installing a
// package there leaves the fingerprint as it was, and an edit of a source
// changes it.
func TestAssemblyScriptFingerprintLeavesNodeModulesOut(t *testing.T) {
	job := asJob(t)
	ctx := context.Background()
	before, err := Fingerprint(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, job.SourceDir, map[string]string{"node_modules/left-pad/index.js": "module.exports = 1\n"})
	if after, err := Fingerprint(ctx, job); err != nil || after != before {
		t.Errorf("a file in node_modules changed the fingerprint (%v)", err)
	}
	testenv.WriteFiles(t, job.SourceDir, map[string]string{"util.ts": "export const x = 1;\n"})
	if after, err := Fingerprint(ctx, job); err != nil || after == before {
		t.Errorf("a new source left the fingerprint as it was (%v)", err)
	}
}
