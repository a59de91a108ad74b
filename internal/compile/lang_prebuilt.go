package compile

// The file is not lang_wasm.go: a _wasm suffix is a build constraint.

import "context"

// langWasm is a prebuilt module or component, made by other tools: the
// pod's source is the .wasm file (prebuilt.go, docs/components.md).
var langWasm = &Language{
	Name:      "wasm",
	Title:     "prebuilt WebAssembly",
	Source:    "the pod's prebuilt .wasm file",
	SourceExt: ".wasm",
	Fit:       FitAdvice{ReleaseShare: 25},
	compile:   prebuilt,
	// Nothing but the file itself decides the module.
	fingerprint: func(context.Context, Job, func(k, v string)) {},
}
