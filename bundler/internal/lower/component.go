package lower

import (
	"fmt"
	"strings"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/wasmbin"
)

// Component section ids (the component model's binary format).
const (
	compCustom     = 0
	compCoreModule = 1
	compComponent  = 4
	compCanon      = 8
	compStart      = 9
	compImport     = 10
	compValue      = 12
)

// The core modules wit-component adds beside the pod's own when it adapts
// a module that imports WASI preview 1: the wasi_snapshot_preview1 adapter
// and its glue, as the component's "component-name" section names them.
// The boards provide WASI preview 1 themselves, so the pod's module runs
// without them (docs/components.md).
const (
	wasiAdapter = "wit-component:adapter:wasi_snapshot_preview1"
	shimModule  = "wit-component-shim-module"
	fixupModule = "wit-component-fixup"
)

// Component returns the one core module of a component of world
// kube32:app/pod. It refuses, naming it, what a core module cannot
// express: a second core module (other than the WASI preview 1 adapter), a
// nested component, a start function, values, an import of an interface
// the boards do not have, resources, and strings or lists lowered through
// cabi_realloc.
func Component(bin []byte) ([]byte, error) {
	secs, err := sections(bin)
	if err != nil {
		return nil, fmt.Errorf("component: %w", err)
	}
	modules := 0
	for _, s := range secs {
		if s.id == compCoreModule {
			modules++
		}
	}
	names := map[uint32]string{}
	for _, s := range secs {
		if s.id == compCustom {
			coreModuleNames(s.body, uint32(modules), names)
		}
	}
	adapted := false
	for _, n := range names {
		adapted = adapted || n == wasiAdapter
	}
	var pod []byte
	podIndex, next := -1, uint32(0)
	for _, s := range secs {
		switch s.id {
		case compCoreModule:
			idx := next
			next++
			if n := names[idx]; adapted && (n == wasiAdapter || n == shimModule || n == fixupModule) {
				continue
			}
			if pod != nil {
				return nil, fmt.Errorf("the component has a second core module (%s, after %s): the boards run one core module", moduleName(names, idx), moduleName(names, uint32(podIndex)))
			}
			pod, podIndex = s.body, int(idx)
		case compComponent:
			return nil, fmt.Errorf("the component holds a nested component: the boards run one core module")
		case compStart:
			return nil, fmt.Errorf("the component has a start function: the boards run one core module, whose exports the node calls")
		case compValue:
			return nil, fmt.Errorf("the component defines values: the boards run one core module")
		}
	}
	if pod == nil {
		return nil, fmt.Errorf("the component has no core module of its own")
	}
	for _, s := range secs {
		switch s.id {
		case compImport:
			if err := checkComponentImports(s.body, adapted); err != nil {
				return nil, err
			}
		case compCanon:
			if err := checkCanons(s.body, adapted); err != nil {
				return nil, err
			}
		}
	}
	return pod, nil
}

// moduleName names core module idx: its name in the component-name
// section, else its index.
func moduleName(names map[uint32]string, idx uint32) string {
	if n := names[idx]; n != "" {
		return fmt.Sprintf("core module %d %q", idx, n)
	}
	return fmt.Sprintf("core module %d", idx)
}

// coreModuleNames reads the names of the component's core modules (of
// index below modules) from a custom section "component-name" (the
// component's name section); other custom sections, other names and names
// it cannot read are left out: names only word errors and find the
// adapter, and a name section of millions of entries keeps no more.
func coreModuleNames(body []byte, modules uint32, names map[uint32]string) {
	r := wasmbin.NewReader(body)
	if string(r.NameBytes()) != "component-name" {
		return
	}
	for r.More() {
		id := r.Byte()
		sub := wasmbin.NewReader(r.Bytes(int(r.U32())))
		if r.Err() != nil || id != 1 {
			continue
		}
		// Sort names: a core sort is 0x00 then the core sort, 0x11 for
		// modules.
		if sub.Byte() != 0x00 || sub.Byte() != 0x11 {
			continue
		}
		n := sub.U32()
		for i := uint32(0); i < n && sub.Err() == nil; i++ {
			idx := sub.U32()
			name := sub.NameBytes()
			if sub.Err() == nil && idx < modules {
				names[idx] = string(name)
			}
		}
	}
}

// checkComponentImports refuses an import of an interface the boards do
// not have: only kube32:app/k32 at the ABI's version, and, in a component
// adapted from WASI preview 1, the WASI interfaces of abi.WASIInterfaces,
// which the adapter imports to implement WASI preview 1 (the boards
// implement it themselves).
func checkComponentImports(body []byte, adapted bool) error {
	r := wasmbin.NewReader(body)
	n := r.U32()
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		form := r.Byte()
		name := r.Name()
		switch form {
		case 0x00:
		case 0x01: // a name with a version suffix
			r.Name()
		default:
			r.Fail("unknown import name encoding 0x%02x", form)
		}
		skipExternDesc(r)
		if r.Err() != nil {
			break
		}
		if err := checkComponentImport(name, adapted); err != nil {
			return err
		}
	}
	if r.Err() != nil {
		return fmt.Errorf("component import section: %w", r.Err())
	}
	return nil
}

func checkComponentImport(name string, adapted bool) error {
	if strings.HasPrefix(name, "kube32:") {
		return checkInterface("the component", name)
	}
	iface, _, _ := strings.Cut(name, "@")
	if strings.HasPrefix(name, "wasi:") && adapted && abi.InWASIInterfaces(iface) {
		return nil
	}
	if strings.HasPrefix(name, "wasi:") {
		return fmt.Errorf("the component imports %s, a WASI interface the boards do not have (they run WASI preview 1: docs/components.md)", name)
	}
	return fmt.Errorf("the component imports %s, an interface the boards do not have (only %s)", name, abi.WITModule())
}

// skipExternDesc reads past the type of an import.
func skipExternDesc(r *wasmbin.Reader) {
	switch kind := r.Byte(); kind {
	case 0x00: // core module: 0x11, type index
		r.Byte()
		r.U32()
	case 0x01, 0x04, 0x05: // func, instance, component: type index
		r.U32()
	case 0x02, 0x03: // value or type bound
		if r.Byte() == 0x00 || kind == 0x02 {
			r.U32()
		}
	default:
		r.Fail("unknown import kind 0x%02x", kind)
	}
}

// checkCanons refuses the canonical definitions a core module cannot
// express: resource built-ins, strings or lists lowered through realloc,
// and anything newer (async, streams, threads). A component adapted from
// WASI preview 1 uses them for the adapter only, which the boards do not
// run, so they are not checked then.
func checkCanons(body []byte, adapted bool) error {
	if adapted {
		return nil
	}
	r := wasmbin.NewReader(body)
	n := r.U32()
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		switch op := r.Byte(); op {
		case 0x00, 0x01: // lift, lower: sort, function, options (, type)
			r.Byte()
			r.U32()
			if err := checkCanonOptions(r, op, i); err != nil {
				return err
			}
			if op == 0x00 {
				r.U32()
			}
		case 0x02, 0x03, 0x04, 0x07:
			return fmt.Errorf("the component uses resources (canonical definition %d, resource.%s): a core module cannot express them", i, map[byte]string{0x02: "new", 0x03: "drop", 0x04: "rep", 0x07: "drop async"}[op])
		default:
			return fmt.Errorf("the component uses canonical built-in 0x%02x (definition %d): a core module cannot express it", op, i)
		}
	}
	if r.Err() != nil {
		return fmt.Errorf("component canonical section: %w", r.Err())
	}
	return nil
}

// checkCanonOptions reads the options of a lift or lower and refuses a
// lowering that needs realloc: the boards' imports pass only numbers.
func checkCanonOptions(r *wasmbin.Reader, op byte, i uint32) error {
	n := r.U32()
	for j := uint32(0); j < n && r.Err() == nil; j++ {
		switch opt := r.Byte(); opt {
		case 0x00, 0x01, 0x02, 0x06: // string encodings, async
		case 0x03, 0x05, 0x07: // memory, post-return, callback
			r.U32()
		case 0x04:
			r.U32()
			if op == 0x01 {
				return fmt.Errorf("the component lowers strings or lists through cabi_realloc (canonical definition %d): the boards' functions take only numbers", i)
			}
		default:
			return fmt.Errorf("the component uses canonical option 0x%02x (definition %d): a core module cannot express it", opt, i)
		}
	}
	return nil
}
