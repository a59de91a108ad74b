// Package assdk holds the AssemblyScript SDK of kube32 pods: the library k32
// (k32/*.ts), with k32/sys.ts generated from the tables of package abi, and
// lib/k32_hooks.ts, which asc gets with --lib so that abort, trace and
// Math.random's seed go to the ABI in every pod, whatever it imports.
// The CLI writes it into a project (.kube32/sdk/assemblyscript), where asc
// finds it (--path) and editors through the pods' tsconfig.json, so that
// AssemblyScript pods build offline with no SDK checkout
// (docs/assemblyscript.md).
package assdk

import "embed"

// Source holds the folders k32 and lib at its root.
//
//go:embed k32 lib
var Source embed.FS

// Version is the assemblyscript release the SDK is written and tested
// against: the template's package.json pins it, and kube32 build takes an
// asc of the same minor version (0.28.x).
const Version = "0.28.20"
