// Package rustsdk holds the Rust SDK of kube32 pods, the crate k32: its
// Cargo.toml and sources, with src/sys.rs generated from the tables of
// package abi. The CLI writes them into a build directory and compiles the
// crate with rustc, so that Rust pods build offline with no SDK checkout.
package rustsdk

import "embed"

// Source holds Cargo.toml and src/ at its root.
//
//go:embed Cargo.toml src
var Source embed.FS
