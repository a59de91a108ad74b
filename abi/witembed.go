package abi

import _ "embed"

// WIT is abi/k32.wit, the WIT package kube32:app at Version: the guest
// contract that `kube32 wit` prints and that Go bindings are generated from
// (docs/components.md).
//
//go:embed k32.wit
var WIT []byte
