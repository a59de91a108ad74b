package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/kube32/kube32/internal/treehash"
)

// fingerprintVersion changes when the way pods are compiled changes in a way
// the other inputs do not show.
const fingerprintVersion = "kube32-compile/2" // 2: compilers run in the project directory

// Fingerprint hashes everything Compile reads: the source tree, the flags,
// the compiler's version and the embedded SDK. Equal fingerprints mean an
// equal module, so a build can skip the compile.
func Fingerprint(ctx context.Context, job Job) (string, error) {
	h := sha256.New()
	field := func(k, v string) { fmt.Fprintf(h, "%s=%q\n", k, v) }
	field("version", fingerprintVersion)
	field("name", job.Name)
	field("language", job.Language)
	// The source's path from the project goes into C's __FILE__ and Rust's
	// panic locations.
	field("path", filepath.ToSlash(job.fromRoot(job.SourceDir)))
	lang, ok := LookupLanguage(job.Language)
	if !ok {
		return "", fmt.Errorf("pod %s: language %q is not supported (%s)", job.Name, job.Language, LanguageNames())
	}
	lang.fingerprint(ctx, job, field)
	if r := releaseFingerprint(ctx, job); r != "" {
		field("release", r)
	}
	if err := treehash.Write(h, job.SourceDir, treehash.Options{Exclude: sourceExcludes(job, lang), SkipHidden: true}); err != nil {
		return "", fmt.Errorf("pod %s: %w", job.Name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sourceExcludes are the folders of the job's source that are not sources:
// the job's own, and its language's toolchain folders where there are any.
func sourceExcludes(job Job, lang *Language) []string {
	ex := append([]string{}, job.Exclude...)
	for _, d := range lang.ToolDirs {
		ex = append(ex, filepath.Join(job.SourceDir, d))
	}
	return ex
}
