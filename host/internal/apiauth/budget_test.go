package apiauth

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
)

// Take spends the budget as it checks it: of many concurrent takes at one
// instant, exactly abi.TokenGuessBurst pass, the others are told to wait
// until a token has refilled, and one more passes then; another address
// has its own budget.
func TestBudgetTakeIsAtomicAndRefills(t *testing.T) {
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	b := NewBudget(clock)
	var passed, waits atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch wait := b.Take("127.0.0.1"); {
			case wait == 0:
				passed.Add(1)
			case wait > time.Second/abi.TokenGuessRate:
				t.Errorf("told to wait %v, longer than one refill", wait)
			default:
				waits.Add(1)
			}
		}()
	}
	wg.Wait()
	if passed.Load() != abi.TokenGuessBurst || waits.Load() != 100-abi.TokenGuessBurst {
		t.Errorf("%d of 100 concurrent takes passed, %d told to wait; want %d passed", passed.Load(), waits.Load(), abi.TokenGuessBurst)
	}
	if wait := b.Take("127.0.0.2"); wait != 0 {
		t.Errorf("another address told to wait %v: the budget is per address", wait)
	}
	mu.Lock()
	now = now.Add(time.Second / abi.TokenGuessRate)
	mu.Unlock()
	if wait := b.Take("127.0.0.1"); wait != 0 {
		t.Errorf("after one refill: told to wait %v", wait)
	}
	if wait := b.Take("127.0.0.1"); wait == 0 {
		t.Error("a second take after one refill passed")
	}
}
