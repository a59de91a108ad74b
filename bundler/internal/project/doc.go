// Package project reads kube32.yaml, the project file of a kube32 app: its
// name, its manifests, the pods to compile and the StaticBundles to ship.
// Load decodes it strictly, fills defaults and validates it; every error names
// the file and the field, e.g.
//
//	kube32.yaml: pods[1].language: "java" is not supported (go, c, rust, assemblyscript, wasm)
package project
