package apiauth

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/lograte"
)

// guesses counts the wrong cluster tokens of each client address, so that
// no client can try tokens faster than abi.TokenGuessRate a second after a
// burst of abi.TokenGuessBurst (docs/serve.md, "Hostile clients"). Only
// wrong tokens count: a client that sends the right one is never slowed.
// A client past its budget is not checked at all, since a check would tell
// it the right token by answering.
type guesses struct {
	logf func(format string, args ...any)
	now  func() time.Time // nil: time.Now (tests stop the clock)

	mu      sync.Mutex
	clients map[string]*guesser
	others  *guesser // every client past abi.TokenGuessClients
}

// guesser is one client address's count.
type guesser struct {
	budget  *rate.Limiter
	lines   lograte.Limiter
	wrong   int // wrong tokens since the last log line
	limited int // 429s since the last log line
}

func newGuesser() *guesser {
	return &guesser{budget: rate.NewLimiter(abi.TokenGuessRate, abi.TokenGuessBurst)}
}

// of returns the count of client, made when it is new; with the table full
// it first forgets the clients whose budget has refilled, which are like
// new ones, and else shares one count among the newcomers.
func (g *guesses) of(client string) *guesser {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.clients[client]; ok {
		return c
	}
	if g.clients == nil {
		g.clients, g.others = map[string]*guesser{}, newGuesser()
	}
	if len(g.clients) >= abi.TokenGuessClients {
		for a, c := range g.clients {
			if c.budget.TokensAt(lograte.Now(g.now)) >= abi.TokenGuessBurst {
				delete(g.clients, a)
			}
		}
		if len(g.clients) >= abi.TokenGuessClients {
			return g.others
		}
	}
	c := newGuesser()
	g.clients[client] = c
	return c
}

// retryAfter is how long client must wait before its next
// token is checked; 0 when it may send one now.
func (g *guesses) retryAfter(client string) time.Duration {
	c := g.of(client)
	tokens := c.budget.TokensAt(lograte.Now(g.now))
	if tokens >= 1 {
		return 0
	}
	g.note(client, c, func() { c.limited++ })
	return time.Duration((1 - tokens) / abi.TokenGuessRate * float64(time.Second))
}

// wrong counts one wrong token from client.
func (g *guesses) wrong(client string) {
	c := g.of(client)
	c.budget.AllowN(lograte.Now(g.now), 1)
	g.note(client, c, func() { c.wrong++ })
}

// note counts with count, and logs the counts of client at most once per
// abi.LogRateInterval.
func (g *guesses) note(client string, c *guesser, count func()) {
	g.mu.Lock()
	count()
	if g.logf == nil || !c.lines.AllowAt(lograte.Now(g.now)) {
		g.mu.Unlock()
		return
	}
	wrong, limited := c.wrong, c.limited
	c.wrong, c.limited = 0, 0
	g.mu.Unlock()
	g.logf("[AUTH] %s: %d wrong cluster tokens, %d refused unchecked with 429 (more than %d a second)", client, wrong, limited, abi.TokenGuessRate)
}

// WriteTooManyGuesses answers 429 with the seconds until the client may
// send a token again, at least 1.
func WriteTooManyGuesses(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	http.Error(w, "too many wrong cluster tokens from this address: try again after Retry-After seconds", http.StatusTooManyRequests)
}
