package kubelet

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/outbound"
	"github.com/kube32/kube32/host/internal/store"
)

// outage is a way an API server fails a worker's requests.
type outage int

const (
	heldRequests  outage = iota // it reads each request and never answers
	refusedConns                // nothing listens: connections are refused
	silentAccepts               // it accepts connections and never reads them
)

func (o outage) String() string {
	return [...]string{"held requests", "refused connections", "accepts and never answers"}[o]
}

// breakableAPI serves a real API server on one loopback address that a
// test breaks in one of the ways of outage, then mends. What the outage
// holds (requests, connections) stays held, unanswered, until the test
// ends: the worst a worker can meet.
type breakableAPI struct {
	t     *testing.T
	addr  string
	inner http.Handler
	// arrived receives a value when a NetworkPolicy list is held or a
	// connection accepted during the outage (without blocking).
	arrived chan struct{}

	mu     sync.Mutex
	server *http.Server // nil while connections are refused or held unread
	silent net.Listener // accepting connections it never reads
	held   bool
	conns  []net.Conn     // connections accepted and never read
	end    chan struct{}  // closed when the test ends
	wg     sync.WaitGroup // the silent listener's accept loop
}

func newBreakableAPI(t *testing.T, inner http.Handler) *breakableAPI {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &breakableAPI{t: t, addr: ln.Addr().String(), inner: inner,
		arrived: make(chan struct{}, 1), end: make(chan struct{})}
	b.serve(ln)
	t.Cleanup(func() {
		close(b.end)
		b.mu.Lock()
		b.stopServing()
		b.stopSilent()
		b.mu.Unlock()
		b.wg.Wait()
	})
	return b
}

func (b *breakableAPI) URL() string { return "http://" + b.addr }

func (b *breakableAPI) signal() {
	select {
	case b.arrived <- struct{}{}:
	default:
	}
}

func (b *breakableAPI) serve(ln net.Listener) {
	b.server = &http.Server{Handler: http.HandlerFunc(b.handle)}
	go b.server.Serve(ln)
}

func (b *breakableAPI) handle(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	held := b.held
	b.mu.Unlock()
	if held {
		if strings.HasSuffix(r.URL.Path, "/networkpolicies") {
			b.signal()
		}
		select {
		case <-b.end:
		case <-r.Context().Done():
		}
		return
	}
	b.inner.ServeHTTP(w, r)
}

// stopServing closes the listener and every connection, as a server that
// goes away does.
func (b *breakableAPI) stopServing() {
	if b.server != nil {
		b.server.Close()
		b.server = nil
	}
}

func (b *breakableAPI) stopSilent() {
	if b.silent != nil {
		b.silent.Close()
		b.silent = nil
	}
	for _, c := range b.conns {
		c.Close()
	}
	b.conns = nil
}

// listen listens on the API's address again.
func (b *breakableAPI) listen() net.Listener {
	var err error
	for range 100 { // the port was just closed; the system may hold it a moment
		var ln net.Listener
		if ln, err = net.Listen("tcp", b.addr); err == nil {
			return ln
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.t.Fatalf("listening again on %s: %v", b.addr, err)
	return nil
}

// Break starts an outage of shape o.
func (b *breakableAPI) Break(o outage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch o {
	case heldRequests:
		b.held = true
	case refusedConns:
		b.stopServing()
	case silentAccepts:
		b.stopServing()
		ln := b.listen()
		b.silent = ln
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				b.mu.Lock()
				b.conns = append(b.conns, c)
				b.mu.Unlock()
				b.signal()
			}
		}()
	}
}

// Mend ends the outage: the API server answers new requests again. The
// requests and connections the outage holds stay unanswered.
func (b *breakableAPI) Mend() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held = false
	if b.server != nil {
		return
	}
	if b.silent != nil { // its connections stay open: only the listener goes
		b.silent.Close()
		b.silent = nil
	}
	b.serve(b.listen())
}

// Issue 30, item 4: "A policy change reaches a worker within about 7 s"
// and "A worker that has not loaded the policies of a pod's namespace
// denies the pod's calls" (docs/networkpolicy.md), whatever the outage
// looked like. A worker whose lists of four namespaces' policies failed
// allows its pods' calls again within one relist period and one list's
// deadline (7.5 s) of the API server answering again; the API server
// comes back just after the worker sent a list it will never answer,
// the worst moment, where the shape lets the test see that moment.
func TestPolicyRelistAfterOutage(t *testing.T) {
	const bound = 7500 * time.Millisecond // one relist period (abi.PolicyRelist) and one list's deadline
	for _, o := range []outage{heldRequests, refusedConns, silentAccepts} {
		t.Run(o.String(), func(t *testing.T) {
			t.Parallel()
			s := store.New()
			var pods []*corev1.Pod
			for _, ns := range []string{"a", "b", "c", "d"} {
				s.Apply(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
				pods = append(pods, relayPod(ns, "p"))
			}
			api := newBreakableAPI(t, apiserver.New(apiserver.Config{Store: s}))
			source, err := NewAPISource(api.URL(), "")
			if err != nil {
				t.Fatal(err)
			}
			policy, err := outbound.NewPolicy(source, nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			source.Changes(ctx, nodeName) // starts the relist
			host := netip.MustParseAddrPort("127.0.0.9:8000")
			allowed := func() (denied []string) {
				for _, p := range pods {
					if err := policy.CheckHost(ctx, abi.PodID(p.Namespace, p.Name), host); err != nil {
						denied = append(denied, err.Error())
					}
				}
				return denied
			}

			api.Break(o)
			source.PodsSynced(ctx, pods)
			if denied := allowed(); len(denied) != len(pods) {
				t.Fatalf("during the outage, before any list: %d of %d pods denied (%q); want all, fail closed", len(denied), len(pods), denied)
			}
			time.Sleep(abi.PolicyRelist + time.Second) // a relist fails too
			if o != refusedConns {
				for len(api.arrived) > 0 { // what arrived before
					<-api.arrived
				}
				select {
				case <-api.arrived:
				case <-time.After(2 * abi.PolicyRelist):
					t.Fatal("no list reached the broken API server within two relist periods")
				}
			}
			api.Mend()
			back := time.Now()
			var denied []string
			for denied = allowed(); len(denied) > 0 && time.Since(back) < 4*bound; denied = allowed() {
				time.Sleep(10 * time.Millisecond)
			}
			took := time.Since(back)
			t.Logf("%s: calls allowed again %v after the API server came back", o, took.Round(time.Millisecond))
			if len(denied) > 0 || took > bound {
				t.Errorf("%s: calls allowed again %v after the API server came back, want within %v; still denied: %q", o, took, bound, denied)
			}
		})
	}
}
