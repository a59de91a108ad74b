package pod

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// restartGrace (Pod.waitGrace) is how much longer than one callback a request waits for the
// pod (busy, starting or restarting) before it gets 503.
const restartGrace = 2 * time.Second

// unavailable is why a callback could not run now.
type unavailable struct {
	status     int
	retryAfter time.Duration // 0: no Retry-After
	message    string
}

func (u *unavailable) Error() string { return u.message }

// acquire takes the callback lock on a live instance. A request that finds
// the pod busy, starting or restarting waits up to HandlerTimeout plus
// restartGrace; after that, or when the pod is done, it gets an *unavailable.
func (p *Pod) acquire(ctx context.Context) (*instance, func(), error) {
	// The timer is made only when the request has to wait: a free pod
	// costs none.
	start := time.Now()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	timeout := func() <-chan time.Time {
		if timer == nil {
			timer = time.NewTimer(p.timeout + p.waitGrace - time.Since(start))
		}
		return timer.C
	}
	for {
		p.mu.Lock()
		inst, ready, done, msg := p.inst, p.ready, p.done || p.stopped, p.status.Message
		if p.stopped || msg == "" {
			msg = "stopped"
		}
		what := "restarting"
		if p.status.Phase == PhasePending {
			what = "starting"
		}
		retry := time.Until(p.restartAt)
		p.mu.Unlock()
		if done {
			return nil, nil, &unavailable{status: http.StatusServiceUnavailable,
				message: fmt.Sprintf("pod %s is not running: %s", p.id, msg)}
		}
		if inst == nil { // starting or restarting
			select {
			case <-ready:
				continue
			case <-timeout():
				return nil, nil, &unavailable{http.StatusServiceUnavailable, max(retry, time.Second),
					fmt.Sprintf("pod %s is %s", p.id, what)}
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		select {
		case p.lock <- struct{}{}:
		default:
			select {
			case p.lock <- struct{}{}:
			case <-timeout():
				return nil, nil, &unavailable{http.StatusServiceUnavailable, time.Second,
					fmt.Sprintf("pod %s is busy with another callback", p.id)}
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
		p.mu.Lock()
		same := p.inst == inst && !p.stopped
		p.mu.Unlock()
		if same {
			return inst, p.releaseLock, nil
		}
		<-p.lock // the instance went away while we waited: look again
	}
}

// writeUnavailable answers a request that could not reach the guest.
func writeUnavailable(w http.ResponseWriter, err error) {
	u, ok := err.(*unavailable)
	if !ok { // the client went away
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if u.retryAfter > 0 {
		secs := int((u.retryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
	}
	http.Error(w, u.message, u.status)
}
