// Package gen renders the files generated from the tables of package abi:
// the C header sdk/c/k32_app_abi.h, the Rust SDK's sdk/rust/src/sys.rs, the
// AssemblyScript SDK's sdk/assemblyscript/k32/sys.ts, the reference docs/abi.md, the table
// of limits and protocol names docs/limits.md and the board profiles
// docs/boards.md.
//
// Rendering is a pure function of the tables, so the generator command
// (cmd/abigen, run by "go generate ./abi") and the test that checks the
// committed files are current (abi/gen_test.go) call the same code.
package gen

import "fmt"

// File is one generated file.
type File struct {
	Path string // slash-separated, relative to the repository root
	Data []byte
}

// Paths of the generated files, relative to the repository root.
const (
	CHeaderPath = "sdk/c/k32_app_abi.h"
	RustSysPath = "sdk/rust/src/sys.rs"
	ASSysPath   = "sdk/assemblyscript/k32/sys.ts"
	DocsPath    = "docs/abi.md"
	LimitsPath  = "docs/limits.md"
	BoardsPath  = "docs/boards.md"
)

// Files renders every generated file, in a fixed order.
func Files() ([]File, error) {
	header, err := CHeader()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", CHeaderPath, err)
	}
	rust, err := RustSys()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", RustSysPath, err)
	}
	as, err := AssemblyScriptSys()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", ASSysPath, err)
	}
	docs, err := Docs()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", DocsPath, err)
	}
	limits, err := Limits()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", LimitsPath, err)
	}
	boards, err := Boards()
	if err != nil {
		return nil, fmt.Errorf("rendering %s: %w", BoardsPath, err)
	}
	return []File{{Path: CHeaderPath, Data: header}, {Path: RustSysPath, Data: rust}, {Path: ASSysPath, Data: as}, {Path: DocsPath, Data: docs}, {Path: LimitsPath, Data: limits},
		{Path: BoardsPath, Data: boards}}, nil
}
