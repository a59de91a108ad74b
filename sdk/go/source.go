//go:build !wasm

package k32

import "embed"

// Source holds this module's own source files (go.mod and the non-test .go
// files of every package), so the kube32 CLI can write an offline copy of the
// SDK beside an app and build it without network. Test files and testdata are
// left out: an app build needs neither. A test keeps this list complete.
//
//go:embed go.mod
//go:embed buf.go call.go channel.go clock.go doc.go env.go errors.go
//go:embed exports_other.go exports_wasm.go handler.go header.go imports_other.go imports_wasm.go
//go:embed init.go log.go protect.go serve.go source.go
//go:embed k32http/callargs.go k32http/callerror.go k32http/doc.go k32http/handle.go k32http/response.go k32http/transport.go
var Source embed.FS
