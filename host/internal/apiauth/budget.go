package apiauth

import (
	"time"

	"github.com/kube32/kube32/host/internal/lograte"
)

// Budget is the API port's budget of wrong tokens per client address
// (guesses.go) for a listener that has its tokens checked elsewhere, at a
// cost: a kube32 node's kubelet API spends one on each TokenReview a
// client address makes it ask (docs/kubeletapi.md), so that none makes it
// ask the cluster more than abi.TokenGuessBurst at once and
// abi.TokenGuessRate a second. It logs nothing.
type Budget struct{ guesses guesses }

// NewBudget returns an empty budget; clock, when set, is its time (tests
// stop it), nil is time.Now.
func NewBudget(clock func() time.Time) *Budget {
	return &Budget{guesses: guesses{now: clock}}
}

// Take spends one of client's budget on a token about to be checked and
// returns 0; or, when it is spent, spends nothing and returns how long
// until there is one. Taking before the check, rather than counting after,
// keeps concurrent requests from all passing while the checks are under
// way.
func (b *Budget) Take(client string) time.Duration {
	now := lograte.Now(b.guesses.now)
	lim := b.guesses.of(client).budget
	for {
		if lim.AllowN(now, 1) {
			return 0
		}
		// Nothing is spent, so concurrent refusals cannot push each
		// other's wait past one refill (a reservation they cancel would).
		if missing := 1 - lim.TokensAt(now); missing > 0 {
			return time.Duration(missing / float64(lim.Limit()) * float64(time.Second))
		}
	}
}
