package apiauth

import "time"

// Budget is the API port's budget of wrong tokens per client address
// (guesses.go) for a listener that checks its tokens otherwise: a kube32
// node's kubelet API counts in one the bearer tokens its TokenReviews
// refused (docs/kubeletapi.md), so that no client makes it ask the cluster
// faster than abi.TokenGuessRate a second after abi.TokenGuessBurst. It
// logs nothing.
type Budget struct{ guesses guesses }

// NewBudget returns an empty budget; clock, when set, is its time (tests
// stop it), nil is time.Now.
func NewBudget(clock func() time.Time) *Budget {
	return &Budget{guesses: guesses{now: clock}}
}

// RetryAfter is how long client must wait before its next token is
// checked; 0 when it may send one now.
func (b *Budget) RetryAfter(client string) time.Duration { return b.guesses.retryAfter(client) }

// Wrong counts one wrong token from client.
func (b *Budget) Wrong(client string) { b.guesses.wrong(client) }
