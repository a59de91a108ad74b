// Package testasc gives tests the real AssemblyScript compiler: npm's
// assemblyscript at the version the SDK pins (assdk.Version), installed once
// with npm from the package.json of template as-http into the user cache
// directory (<KUBE32_ASC_CACHE, else user cache/kube32>/assemblyscript-<version>)
// under a lock, so the test processes of one run install it once. A pod's
// folder then gets a node_modules link to it, where kube32 build finds asc
// as it finds the one `npm install` puts there. Without node and npm, or
// without the npm registry, the tests that need it skip, and fail when
// CI=true (internal/testkit/testenv). TypeScript, whose language service checks the
// pods' editor files, is installed the same way.
package testasc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kube32/kube32/internal/testkit/testenv"
	assdk "github.com/kube32/kube32/sdk/assemblyscript"
	"github.com/kube32/kube32/templates"
)

// CacheDirEnv names a variable that, when set, is the directory the
// compiler (and TypeScript) are installed under instead of the user cache
// directory's kube32.
const CacheDirEnv = "KUBE32_ASC_CACHE"

// Link makes podDir/node_modules a link to the installed compiler's
// node_modules.
func Link(t testing.TB, podDir string) {
	t.Helper()
	modules := filepath.Join(Install(t), "node_modules")
	if err := os.Symlink(modules, filepath.Join(podDir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

// Install returns the directory whose node_modules holds assemblyscript,
// installing it first if needed, from the template's own package.json, so
// that its pin is what installs.
func Install(t testing.TB) string {
	t.Helper()
	files, err := templates.Files("as-http", templates.Data{Name: "asc"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Base(f.Path) == "package.json" {
			return install(t, "assemblyscript-"+assdk.Version, "assemblyscript/bin/asc.js", f.Content)
		}
	}
	t.Fatal("template as-http has no package.json")
	return ""
}

// TypeScriptVersion is the TypeScript whose language service checks the
// editor files of AssemblyScript pods.
const TypeScriptVersion = "5.9.3"

// TypeScript returns the path of tsc, TypeScript's compiler (the language
// service editors run), installing it first if needed.
func TypeScript(t testing.TB) string {
	t.Helper()
	pkg := `{"private": true, "devDependencies": {"typescript": "` + TypeScriptVersion + `"}}`
	dir := install(t, "typescript-"+TypeScriptVersion, "typescript/bin/tsc", []byte(pkg))
	return filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")
}

// install runs npm install for pkg (a package.json) in the cache folder
// name, under a lock, unless node_modules/marker is there already, and
// returns the folder.
func install(t testing.TB, name, marker string, pkg []byte) string {
	t.Helper()
	testenv.Tool(t, "node")
	npm := testenv.Tool(t, "npm")
	dir, err := testenv.ToolCacheDir(CacheDirEnv, name)
	if err != nil {
		unavailable(t, "%v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		unavailable(t, "%v", err)
	}
	unlock, err := testenv.LockFile(filepath.Join(dir, "install.lock"), func() {
		t.Logf("testasc: another process is installing %s in %s; waiting", name, dir)
	})
	if err != nil {
		unavailable(t, "%v", err)
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(marker))); err == nil {
		return dir
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		unavailable(t, "%v", err)
	}
	t.Logf("testasc: installing %s in %s", name, dir)
	cmd := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefer-offline")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		unavailable(t, "npm install (%s): %v\n%s", name, err, msg)
	}
	return dir
}

func unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	testenv.Unavailable(t, "assemblyscript", format, args...)
}
