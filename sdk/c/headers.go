// Package csdk holds the C SDK of kube32 pods: the generated k32_app_abi.h
// (the host functions, exports and error codes) and the helper header k32.h.
// The CLI writes them into a build directory so that pods build with
// -I <dir> and no SDK checkout.
package csdk

import "embed"

// Headers holds k32_app_abi.h and k32.h at its root.
//
//go:embed *.h
var Headers embed.FS
