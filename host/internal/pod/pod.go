package pod

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/kube32/kube32/abi"
)

// Pod runs one container: one wazero Runtime, one module instance at a time.
type Pod struct {
	cfg     Config
	id      string // "namespace/name"
	caps    map[string]bool
	timeout time.Duration
	// waitGrace is how much longer than a callback a request waits for the
	// pod; restartGrace, shortened by tests.
	waitGrace time.Duration
	logs      ring
	stdout    *lineWriter
	stderr    *lineWriter

	// lock is the callback lock: one callback at a time per pod, as on the
	// boards. A channel rather than a mutex so that waiting is bounded.
	lock chan struct{}
	// releaseLock gives the lock back; made once, so that acquiring it
	// costs no allocation.
	releaseLock func()

	// ctx is the pod's life; Stop cancels it, which kills a running callback
	// (WithCloseOnContextDone) and interrupts sleeps and calls.
	ctx    context.Context
	cancel context.CancelFunc

	// current is the context of the callback in progress, so that WASI
	// sleeps (poll_oneoff) end with it.
	current atomic.Pointer[callCtx]
	// budgetTimer times the budget of the callbacks under ctx, one at a
	// time (callCtx).
	budgetTimer *time.Timer

	// lastCall is the answer to the last k32_http_call; guarded by lock.
	lastCall *CallResult
	// respQueue holds the response headers k32_handle queues; guarded by
	// lock.
	respQueue respQueue
	// scratchNames is reused by k32_req_headers to sort the request's
	// header names; guarded by lock.
	scratchNames []string

	// logRestart is the restart count of the instance starting or
	// running, which each log line records (Line.Restart).
	logRestart atomic.Int32
	cpu        cpuMeter    // the callbacks' running time (usage.go)
	board      boardStats  // the callbacks' board time (boardtime.go)
	uncounted  atomic.Bool // the module runs uncounted (meter.Instrument refused it)

	// starting counts a Start in progress, which Stop waits for: a module
	// compiles into a runtime and a compilation cache that its owner
	// closes once every pod has stopped. Added to under mu, never once
	// stopped is set.
	starting sync.WaitGroup

	mu        sync.Mutex // guards the fields below
	status    Status
	started   bool // Start was called
	stopped   bool // Stop was called
	done      bool // the pod will serve no more: failed or succeeded for good, or stopped
	rt        wazero.Runtime
	compiled  wazero.CompiledModule // shared with the pods of the same module (runtime.go)
	moduleKey moduleKey             // compiled's key, for releaseModule
	inst      *instance             // nil while starting or restarting
	ready     chan struct{}         // closed when inst is set or done; replaced when the instance goes away
	failures  int                   // consecutive container ends, for the restart backoff
	restartAt time.Time             // when a pending restart is due
}

var _ http.Handler = (*Pod)(nil)

// instance is one instantiation of the module.
type instance struct {
	mod       api.Module
	memory    *linearMemory
	handle    api.Function // k32_handle, or nil
	event     api.Function // k32_event, or nil
	main      api.Function // k32_main, else _start; run only when there is no k32_handle
	mainName  string
	startedAt time.Time
	counters  *counters // its work counters; nil when not counted (boardtime.go)
}

// New prepares a pod; Start runs it.
func New(cfg Config) *Pod {
	if cfg.RestartPolicy == "" {
		cfg.RestartPolicy = restartAlways
	}
	p := &Pod{
		cfg:       cfg,
		id:        abi.PodID(cfg.Namespace, cfg.Name),
		caps:      map[string]bool{},
		timeout:   cfg.HandlerTimeout,
		waitGrace: restartGrace,
		lock:      make(chan struct{}, 1),
		ready:     make(chan struct{}),
		status:    Status{Phase: PhasePending, RestartCount: cfg.RestartCount, LastTermination: cfg.LastTermination},
	}
	if p.timeout <= 0 {
		p.timeout = defaultHandlerTimeout
	}
	for _, c := range cfg.Capabilities {
		p.caps[c] = true
	}
	p.releaseLock = func() { <-p.lock }
	p.stdout = &lineWriter{pod: p, stream: "stdout", level: 1}
	p.stderr = &lineWriter{pod: p, stream: "stderr", level: 3}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.budgetTimer = time.AfterFunc(time.Hour, p.budgetSpent)
	p.budgetTimer.Stop()
	context.AfterFunc(p.ctx, p.parentEnded)
	p.cpu.made = time.Now()
	return p
}

// Status returns the pod's current status.
func (p *Pod) Status() Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// notify passes a status snapshot to Config.OnStatus; call it without mu held.
func (p *Pod) notify(s Status) {
	if p.cfg.OnStatus != nil {
		p.cfg.OnStatus(s)
	}
}

// signalLocked wakes everyone waiting for the pod to be ready; mu held.
func (p *Pod) signalLocked() {
	select {
	case <-p.ready:
	default:
		close(p.ready)
	}
}
