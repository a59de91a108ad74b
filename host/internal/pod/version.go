package pod

import "runtime/debug"

// wazeroModule is the module path of the WebAssembly runtime pods run on.
const wazeroModule = "github.com/tetratelabs/wazero"

// WazeroVersion is the version of wazero this binary was built with, read
// from its build information (following a replace directive), so that
// `kube32 version` and every Node's containerRuntimeVersion name the runtime
// that actually runs the pods. It is "unknown" when the binary records no
// build information or no wazero.
func WazeroVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == wazeroModule {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			if dep.Version != "" {
				return dep.Version
			}
		}
	}
	return "unknown"
}
