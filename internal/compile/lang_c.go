package compile

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
)

// langC is C, with clang for wasm32-wasi (c.go).
var langC = &Language{
	Name:        "c",
	Title:       "C",
	Source:      "the pod's source directory, its .c files",
	TakesCFlags: true,
	Install:     installC,
	Fit:         FitAdvice{ReleaseShare: 25}, // wasm-opt -Oz takes about 20 % off the template
	compile:     compileC,
	fingerprint: func(ctx context.Context, job Job, field func(k, v string)) {
		c, _ := sdkHashes()
		field("flags", strings.Join(cFlags(job), " "))
		field("sdk", c)
		if clang, err := findClang(); err == nil {
			field("tool", clang+" "+toolVersion(ctx, clang, "--version"))
		}
	},
	editors:    cEditorFiles,
	editorFile: func(rel string) bool { return filepath.ToSlash(rel) == compileCommandsFile },
}

// compileCommandsFile is the JSON compilation database of the C pods, at
// the project root, which clangd reads.
const compileCommandsFile = "compile_commands.json"

// cEditorFiles is compile_commands.json with an entry per source of every
// C pod.
func cEditorFiles(_ context.Context, _ EditorProject, jobs []Job) []EditorFile {
	var cmds []CCommand
	for _, job := range jobs {
		if more, err := CCommands(job); err == nil {
			cmds = append(cmds, more...)
		}
	}
	data, err := json.MarshalIndent(cmds, "", "  ")
	if err != nil {
		return nil
	}
	return []EditorFile{{Path: compileCommandsFile, Data: append(data, '\n'), Ours: ownCompileCommands}}
}

// ownCompileCommands reports whether a compile_commands.json is one the
// build wrote. JSON has no comments: the build's entries are those that
// include the C SDK copy of a kube32 build (build/.cache/sdk/c).
func ownCompileCommands(data []byte) bool {
	var cmds []CCommand
	if json.Unmarshal(data, &cmds) != nil {
		return false
	}
	for _, c := range cmds {
		sdk := false
		for i, a := range c.Arguments {
			if a == "-I" && i+1 < len(c.Arguments) && strings.HasSuffix(filepath.ToSlash(c.Arguments[i+1]), "/build/.cache/"+cSDKDir) {
				sdk = true
			}
		}
		if !sdk {
			return false
		}
	}
	return true
}
