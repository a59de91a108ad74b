package pod

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"

	"github.com/kube32/kube32/abi/modcheck"
)

// checkKey is one module under one memory limit.
type checkKey struct {
	module [sha256.Size]byte
	limit  int64
}

// checkResult is what modcheck.Check answered.
type checkResult struct {
	report modcheck.Report
	err    error
}

// maxChecks bounds the remembered checks (serve --watch makes new modules
// for as long as it runs); past it they are forgotten all at once.
const maxChecks = 256

var (
	checksMu sync.Mutex
	checks   = map[checkKey]checkResult{}
)

// check is modcheck.Check of a module against a memory limit, done once
// per module and limit: the pods of one image, thousands of them, and
// every restart share one answer. Only the module's own verdicts are
// remembered, never an error of the moment (an unreadable binary, a
// context ended).
func check(ctx context.Context, module []byte, limit int64) (modcheck.Report, error) {
	key := checkKey{sha256.Sum256(module), limit}
	checksMu.Lock()
	r, ok := checks[key]
	checksMu.Unlock()
	if ok {
		return r.report, r.err
	}
	rep, err := modcheck.Check(ctx, module, modcheck.Options{MemoryLimit: limit})
	var cerr *modcheck.Error
	if err == nil || errors.As(err, &cerr) {
		checksMu.Lock()
		if len(checks) >= maxChecks {
			clear(checks)
		}
		checks[key] = checkResult{rep, err}
		checksMu.Unlock()
	}
	return rep, err
}
