// Package build implements `kube32 build`: it compiles each pod of a project,
// checks the module against k32_app_abi and the memory limit its Pods set,
// precompresses asset bundles and StaticBundles, and writes the firmware and
// SD-card trees of docs/abi.md ("Images") under the project's build/ directory:
//
//	build/firmware/images/wasm/<name>.wasm   wasm://embedded/<name>
//	build/firmware/images/web/<name>/        its assets, and StaticBundles
//	build/sd/kube32/images/<name>.wasm       wasm://sd/<name>
//	build/sd/kube32/images/<name>/           its assets
//
// Builds are incremental: each output has a stamp under build/.cache holding
// the hash of its inputs, and an output whose stamp matches is not rebuilt.
// Build owns build/firmware and build/sd: anything there that the project no
// longer produces is removed. Bundles are read through an os.Root at the
// project directory and hold only its files (docs/bundles.md, "Only files of
// the project").
package build
