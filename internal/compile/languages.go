package compile

import (
	"context"
	"slices"
	"strings"
)

// Language is one language a pod can be written in, with everything kube32
// does differently for it: how its sources are found and fingerprinted, how
// it compiles, which editor files and SDK copy a project gets, the fit
// report's advice and what a missing toolchain says. Languages is the one
// place that tells languages apart; no code outside this table switches on
// a pod's language (TestOnlyTheLanguageTableSwitchesOnLanguage).
type Language struct {
	// Name is the language as kube32.yaml's pods[].language spells it: the
	// one spelling of it.
	Name string
	// Title is the language as people write it, in messages and advice.
	Title string
	// Source says what pods[].source names, for errors: "the pod's
	// source directory".
	Source string
	// SourceExt, when set, makes the source one file with this extension
	// (a prebuilt .wasm) instead of a directory.
	SourceExt string
	// TakesCFlags says that pods[].cflags applies.
	TakesCFlags bool
	// ToolDirs are folders in a pod's source that hold its toolchain, not
	// its sources (node_modules): the fingerprint and serve --watch leave
	// them out.
	ToolDirs []string
	// Fit is the fit report's advice for its pods.
	Fit FitAdvice
	// Install says what to install when the toolchain is missing.
	Install string

	compile     func(context.Context, Job) (*Module, error)
	fingerprint func(ctx context.Context, job Job, field func(k, v string))
	// editors are the files editors read to see the language's pods as
	// the build compiles them; nil for none.
	editors func(ctx context.Context, p EditorProject, jobs []Job) []EditorFile
	// editorFile reports whether rel, from the project root, is one of
	// them or what their tools write.
	editorFile func(rel string) bool
	// sdk writes the SDK copy that the job's pod uses outside the build
	// (its toolchain, editors) and returns its folder; nil for none.
	sdk func(Job) (string, error)
}

// FitAdvice is what the fit report says of a language's pods.
type FitAdvice struct {
	// RuntimeMemory: the module's initial memory is its runtime's, and no
	// memory limit can go below it.
	RuntimeMemory bool
	// ReleaseShare is at most what percentage of a module's code (custom
	// sections apart) a --release build takes off.
	ReleaseShare int64
	// Large marks a language whose modules are too big for the smallest
	// boards: the report advises the others for it.
	Large bool
	// InitialMemory is the advice for a pod whose initial memory exceeds a
	// board's pod memory; "" for the general one.
	InitialMemory string
}

// Languages is the table of languages, in the order messages list them.
var Languages = []*Language{langGo, langC, langRust, langAssemblyScript, langWasm}

// LookupLanguage returns the language kube32.yaml names name.
func LookupLanguage(name string) (*Language, bool) {
	i := slices.IndexFunc(Languages, func(l *Language) bool { return l.Name == name })
	if i < 0 {
		return nil, false
	}
	return Languages[i], true
}

// LanguageNames lists the names, for messages: "go, c, rust, …".
func LanguageNames() string {
	names := make([]string, len(Languages))
	for i, l := range Languages {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}

// SmallLanguages lists the titles of the languages the fit report advises
// for a Large one: "C, Rust or AssemblyScript".
func SmallLanguages() string {
	var titles []string
	for _, l := range Languages {
		if !l.Fit.Large && l.SourceExt == "" {
			titles = append(titles, l.Title)
		}
	}
	if len(titles) < 2 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " or " + titles[len(titles)-1]
}

// IsEditorFile reports whether rel, a path from the project root, is a file
// only editors read: one the build writes for some language's editors, or
// what their tools write beside it.
func IsEditorFile(rel string) bool {
	return slices.ContainsFunc(Languages, func(l *Language) bool { return l.editorFile != nil && l.editorFile(rel) })
}

// IsToolDir reports whether a folder of this name in a pod's source holds
// a language's toolchain rather than sources (node_modules).
func IsToolDir(name string) bool {
	return slices.ContainsFunc(Languages, func(l *Language) bool { return slices.Contains(l.ToolDirs, name) })
}

// WriteSDK writes the SDK copy that job's pod uses outside the build (the
// Go SDK for go vet and editors, the AssemblyScript SDK for asc and
// editors) and returns its folder; "" when its language has none.
func WriteSDK(job Job) (string, error) {
	l, ok := LookupLanguage(job.Language)
	if !ok || l.sdk == nil {
		return "", nil
	}
	return l.sdk(job)
}

// EditorProject is what editor files are written for: the project's folder
// and its build cache.
type EditorProject struct {
	Dir, CacheDir string
}

// EditorFile is a file the build writes for editors: its path from the
// project root, its bytes and mode, and how to tell a version the build
// wrote from the user's, which the build never rewrites.
type EditorFile struct {
	Path string
	Data []byte
	Mode uint32 // 0 = 0o644
	Ours func(old []byte) bool
}

// EditorFiles returns the editor files of every language for the jobs of
// a project (docs/project.md "Editors"). A pod that cannot be compiled is
// left out: the build says why.
func EditorFiles(ctx context.Context, p EditorProject, jobs []Job) []EditorFile {
	var files []EditorFile
	for _, l := range Languages {
		if l.editors == nil {
			continue
		}
		var mine []Job
		for _, j := range jobs {
			if j.Language == l.Name {
				mine = append(mine, j)
			}
		}
		if len(mine) > 0 {
			files = append(files, l.editors(ctx, p, mine)...)
		}
	}
	return files
}
