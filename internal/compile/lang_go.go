package compile

import (
	"context"
	"os"
	"strings"

	"github.com/kube32/kube32/internal/witgo"
)

// langGo is Go, with GOOS=wasip1 (gopod.go).
var langGo = &Language{
	Name:    "go",
	Title:   "Go",
	Source:  "the pod's source directory, a main package with its own go.mod",
	Install: installGo,
	Fit: FitAdvice{
		RuntimeMemory: true,
		ReleaseShare:  5, // wasm-opt -Oz takes about 4 % off the template
		Large:         true,
		InitialMemory: "Go's runtime alone starts above 2.0 MiB",
	},
	compile: compileGo,
	fingerprint: func(ctx context.Context, job Job, field func(k, v string)) {
		_, g := sdkHashes()
		field("flags", strings.Join(goArgs(job), " ")+" "+goFlags(os.Getenv("GOFLAGS")))
		field("sdk", g)
		field("wit", witgo.Hash())
		if gobin, err := findGo(); err == nil {
			field("tool", gobin+" "+toolVersion(ctx, gobin, "version"))
		}
	},
	// The project's copy of the SDK, which the pod's go.mod points at, and
	// for a pod that requires them the Go bindings of the WIT world: go
	// vet, go test and editors find both offline.
	sdk: func(job Job) (string, error) {
		dir, err := goSDK(job)
		if err != nil {
			return "", err
		}
		if _, err := goWIT(job); err != nil {
			return "", err
		}
		return dir, nil
	},
}
