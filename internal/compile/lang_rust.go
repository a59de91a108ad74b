package compile

import "context"

// langRust is Rust, with rustc for wasm32-wasi and the k32 crate (rust.go).
var langRust = &Language{
	Name:    "rust",
	Title:   "Rust",
	Source:  "the pod's source directory, with src/lib.rs or lib.rs",
	Install: installRust,
	Fit:     FitAdvice{ReleaseShare: 25}, // wasm-opt -Oz takes about 12 % off the template
	compile: compileRust,
	fingerprint: func(ctx context.Context, job Job, field func(k, v string)) {
		field("sdk", rustSDKHash())
		field("tool", rustFingerprint(ctx, job))
	},
	editors:    rustEditorFiles,
	editorFile: isCargoFile,
}
