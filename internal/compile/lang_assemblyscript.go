package compile

import (
	"context"
	"path/filepath"
	"strings"

	assdk "github.com/kube32/kube32/sdk/assemblyscript"
)

// langAssemblyScript is AssemblyScript, TypeScript's syntax compiled to
// WebAssembly by asc from npm's assemblyscript (assemblyscript.go,
// docs/assemblyscript.md).
var langAssemblyScript = &Language{
	Name:     "assemblyscript",
	Title:    "AssemblyScript",
	Source:   "the pod's source directory, with main.ts, index.ts or assembly/index.ts",
	ToolDirs: []string{"node_modules"},
	Install:  installAssemblyScript,
	// asc -O3z has already shrunk the code; wasm-opt finds little more.
	Fit:     FitAdvice{ReleaseShare: 10},
	compile: compileAssemblyScript,
	fingerprint: func(ctx context.Context, job Job, field func(k, v string)) {
		field("flags", strings.Join(ascFlags(job), " "))
		field("sdk", asSDKHash())
		if asc, err := findASC(ctx, job); err == nil {
			field("tool", asc.node+" "+toolVersion(ctx, asc.node, "--version")+" "+asc.script+" "+asc.version)
		}
	},
	editors: asEditorFiles,
	sdk:     writeASSDK,
}

// asSDKHash is the content hash of the embedded AssemblyScript SDK.
func asSDKHash() string { return hashFS(assdk.Source) }

// asSDKDir is where the job's AssemblyScript SDK copy goes: the project's
// .kube32/sdk/assemblyscript, which asc and the pods' tsconfig.json read.
func asSDKDir(job Job) string {
	base := job.ToolDir
	if base == "" {
		base = job.CacheDir
	}
	return filepath.Join(base, "sdk", "assemblyscript")
}

// writeASSDK writes the SDK copy (the folder k32) and returns its folder.
func writeASSDK(job Job) (string, error) {
	dir := asSDKDir(job)
	return dir, writeSDK(dir, assdk.Source, asSDKHash())
}
