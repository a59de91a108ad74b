package abi

import (
	"strings"
)

// The WIT names of the ABI (abi/k32.wit): the package, without its version
// (that is Version), and its interface of host functions. wit-bindgen writes
// core imports from module WITModule(), named in kebab case.
const (
	WITPackage   = "kube32:app"
	WITInterface = "k32"
)

// WITModule is the core import module a binding generator writes for the
// interface at the ABI's version: "kube32:app/k32@" + Version.
func WITModule() string { return WITPackage + "/" + WITInterface + "@" + Version }

// witCoreNames are the "core-name:" tags of abi/k32.wit: the WIT items whose
// core name is not their WIT name with '-' turned into '_'. wit_test.go
// checks CoreName against every item of the WIT.
var witCoreNames = map[string]string{"initialize": "_initialize", "start": "_start"}

// CoreName is the core WebAssembly name of a function or export of
// abi/k32.wit: its "core-name:" tag, else its kebab-case name with '-'
// turned into '_' (k32-env-get is k32_env_get).
func CoreName(witName string) string {
	if n, ok := witCoreNames[witName]; ok {
		return n
	}
	return strings.ReplaceAll(witName, "-", "_")
}

// WITName is the WIT name of a host function or export: the inverse of
// CoreName.
func WITName(coreName string) string {
	for w, c := range witCoreNames {
		if c == coreName {
			return w
		}
	}
	return strings.ReplaceAll(coreName, "_", "-")
}

// LookupWIT returns the host function whose WIT name is witName
// (k32-env-get); a core name (k32_env_get) is not a WIT name.
func LookupWIT(witName string) (Function, bool) {
	for _, f := range Functions {
		if WITName(f.Name) == witName {
			return f, true
		}
	}
	return Function{}, false
}

// LookupWITExport returns the export whose WIT name is witName (k32-handle,
// initialize).
func LookupWITExport(witName string) (Export, bool) {
	for _, e := range Exports {
		if WITName(e.Name) == witName {
			return e, true
		}
	}
	return Export{}, false
}
