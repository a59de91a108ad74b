package watch

import (
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/bundler"
)

// skippedDirs are folders never watched: the build's own outputs and
// caches (build/), and version control.
var skippedDirs = map[string]bool{"build": true, ".git": true, ".hg": true, ".svn": true, ".jj": true}

// editorTemp reports whether a file name is one that editors write beside
// the file being edited: vim's swap files and its 4913 write test, backups
// (~), Emacs's lock and auto-save files, JetBrains's safe-write copies.
func editorTemp(name string) bool {
	switch {
	case name == "4913", name == ".DS_Store":
		return true
	case strings.HasPrefix(name, ".#"), strings.HasSuffix(name, "~"):
		return true
	case strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"):
		return true
	case strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"):
		return true
	}
	switch filepath.Ext(name) {
	case ".swp", ".swo", ".swx", ".swpx", ".tmp":
		return true
	}
	return false
}

// ignored reports whether a change at path, in the project at dir, cannot
// change what serve runs: it is under a skipped folder of the project or a
// language's toolchain folder (node_modules), an
// editor's temporary file, or a file only editors read, which the build
// itself writes (compile_commands.json, Cargo files).
func ignored(dir, path string) bool {
	if editorTemp(filepath.Base(path)) {
		return true
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	if bundler.IsEditorFile(rel) {
		return true
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if skippedDirs[part] || bundler.IsToolDir(part) {
			return true
		}
	}
	return false
}
