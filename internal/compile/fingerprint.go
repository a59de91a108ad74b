package compile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube32/kube32/internal/treehash"
	"github.com/kube32/kube32/internal/witgo"
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
	c, g := sdkHashes()
	switch job.Language {
	case langC:
		field("flags", strings.Join(cFlags(job), " "))
		field("sdk", c)
		if clang, err := findClang(); err == nil {
			field("tool", clang+" "+toolVersion(ctx, clang, "--version"))
		}
	case langGo:
		field("flags", strings.Join(goArgs(job), " ")+" "+goFlags(os.Getenv("GOFLAGS")))
		field("sdk", g)
		field("wit", witgo.Hash())
		if gobin, err := findGo(); err == nil {
			field("tool", gobin+" "+toolVersion(ctx, gobin, "version"))
		}
	case langRust:
		field("sdk", rustSDKHash())
		field("tool", rustFingerprint(ctx, job))
	}
	if r := releaseFingerprint(ctx, job); r != "" {
		field("release", r)
	}
	if err := treehash.Write(h, job.SourceDir, treehash.Options{Exclude: job.Exclude, SkipHidden: true}); err != nil {
		return "", fmt.Errorf("pod %s: %w", job.Name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
