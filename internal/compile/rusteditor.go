package compile

import (
	"context"
	"path/filepath"

	rustsdk "github.com/kube32/kube32/sdk/rust"
)

// RustCrate is what a Cargo.toml needs so that cargo check and
// rust-analyzer see a Rust pod as kube32 build compiles it.
type RustCrate struct {
	Name   string // the crate name: the pod's, dashes made underscores
	Root   string // the crate root, relative to the pod's folder: src/lib.rs or lib.rs
	SDKDir string // the k32 crate's folder (with its Cargo.toml), written by RustCrateOf
	Std    bool   // the k32 crate's std feature: the crate root does not say #![no_std]
	// Rustc and Target are the compiler and WASI target the build uses;
	// both "" when no rustc has a WASI target.
	Rustc, Target string
	// Bootstrap says that the pod needs RUSTC_BOOTSTRAP=1 and Flags: a
	// no_std pod on a rustc before 1.68 (see rustcBefore168).
	Bootstrap bool
	Flags     []string
}

// RustCrateOf writes the k32 crate into the job's cache, as a build does,
// and describes the pod's crate.
func RustCrateOf(ctx context.Context, job Job) (RustCrate, error) {
	root, err := rustCrateRoot(job.SourceDir)
	if err != nil {
		return RustCrate{}, err
	}
	noStd, err := rustNoStd(filepath.Join(job.SourceDir, filepath.FromSlash(root)))
	if err != nil {
		return RustCrate{}, err
	}
	sdk := filepath.Join(job.CacheDir, filepath.FromSlash(rustSDKDir))
	if err := writeSDK(sdk, rustsdk.Source, rustSDKHash()); err != nil {
		return RustCrate{}, err
	}
	c := RustCrate{Name: rustCrateName(job.Name), Root: root, SDKDir: sdk, Std: !noStd}
	if tc, err := findRust(ctx); err == nil {
		c.Rustc, c.Target = tc.rustc, tc.target
		if noStd && rustcBefore168(toolVersion(ctx, tc.rustc, "--version")) {
			c.Bootstrap, c.Flags = true, rustOldNoStdFlags
		}
	}
	return c, nil
}
