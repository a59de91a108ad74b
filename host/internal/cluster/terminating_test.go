package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// A pod being deleted gracefully gets no request from the Ingress and no
// Service call once the control plane has given it its deletionTimestamp,
// though it still runs and answers on its node's pod port, and its
// EndpointSlice entry reads ready false, serving, terminating ("A Service
// selects Running, non-terminating pods", docs/ingress.md). The pod runs
// on a worker whose view of the API server is frozen, so that it stays
// terminating, and running, as long as the test needs; the Ingress is
// asked every 10 ms from before the deletion on.
func TestTerminatingPodGetsNoTraffic(t *testing.T) {
	images := fixtureImages(t, "relay")
	c := startReady(t, Options{Images: os.DirFS(images), Token: testToken, Objects: []manifest.Object{
		relay("caller", "caller", ControlPlaneName), relay("web-cp", "web", ControlPlaneName), relay("web-term", "web", "frozen"),
		svc("web"), webIngress(),
	}}, "caller", "web-cp")
	api := startFreezableProxy(t, strings.TrimPrefix(c.APIURL(), "http://"))
	w, err := StartWorker(context.Background(), WorkerOptions{Name: "frozen", NodeIP: "127.0.0.7", API: "http://" + api.addr,
		Token: testToken, Images: os.DirFS(images), HandlerTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.thaw(); w.Close() })
	waitReadyPods(t, c, "web-term")

	// Both pods take the Ingress's requests.
	seen := map[string]bool{}
	testenv.EventuallyNil(t, "the Ingress to reach both pods", func() error {
		who, err := ingressWho(c.IngressURL())
		if err != nil {
			return err
		}
		if seen[who] = true; !seen["web-cp"] || !seen["web-term"] {
			return fmt.Errorf("only %v", seen)
		}
		return nil
	})

	type answer struct {
		start time.Time
		who   string
		err   error
	}
	var (
		mu      sync.Mutex
		answers []answer
	)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			start := time.Now()
			who, err := ingressWho(c.IngressURL())
			mu.Lock()
			answers = append(answers, answer{start, who, err})
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
		}
	}()
	time.Sleep(500 * time.Millisecond)

	// The worker stops hearing from the API server; the pod is deleted
	// gracefully (the default 30 s grace period), just after another write
	// (a busy cluster has many), which a request has had the Ingress see.
	api.freeze()
	c.Store.Update(store.Key{Kind: kinds.Pod, Namespace: "default", Name: "caller"}, func(o runtime.Object) bool {
		o.(*corev1.Pod).Annotations = map[string]string{"test": "another write"}
		return true
	})
	time.Sleep(50 * time.Millisecond)
	req, _ := http.NewRequest(http.MethodDelete, c.APIURL()+"/api/v1/namespaces/default/pods/web-term", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	deleted := time.Now() // the store has the deletionTimestamp
	if resp.StatusCode != http.StatusOK || getPod(t, c.Store, "web-term").DeletionTimestamp == nil {
		t.Fatalf("DELETE: %s; want the pod terminating", resp.Status)
	}

	// Service calls from a pod of the control plane: all to web-cp.
	for i := range 20 {
		out := relayVia(t, c.PodURL(), "caller", "call GET http://web/ 0 4096\n")
		testpods.Contains(t, out, "call rc=200 ", "x-relay=web-cp\n")
		if strings.Contains(out, "web-term") {
			t.Fatalf("call %d after the deletion reached web-term:\n%s", i, out)
		}
	}
	// Its EndpointSlice entry, as the API serves it.
	slices := getJSON[discoveryv1.EndpointSliceList](t, c.APIURL()+"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name=web")
	var entries []string
	for _, s := range slices.Items {
		for _, e := range s.Endpoints {
			entries = append(entries, fmt.Sprintf("%s ready=%v serving=%v terminating=%v", e.TargetRef.Name, *e.Conditions.Ready, *e.Conditions.Serving, *e.Conditions.Terminating))
		}
	}
	if strings.Join(entries, "; ") != "web-cp ready=true serving=true terminating=false; web-term ready=false serving=true terminating=true" &&
		strings.Join(entries, "; ") != "web-term ready=false serving=true terminating=true; web-cp ready=true serving=true terminating=false" {
		t.Errorf("EndpointSlice entries: %q, want web-term ready=false serving=true terminating=true", entries)
	}
	time.Sleep(time.Second)
	stop()
	<-done

	// All the while the pod ran, and its node served it.
	out := relayVia(t, w.PodURL(), "web-term", "")
	testpods.Contains(t, out, "who=web-term\n")
	if getPod(t, c.Store, "web-term").DeletionTimestamp == nil {
		t.Fatal("the pod is no longer terminating")
	}
	after := 0
	for _, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("a request at %s: %v", a.start.Format("15:04:05.000"), a.err)
		case a.start.After(deleted):
			after++
			if a.who != "web-cp" {
				t.Errorf("a request %v after the deletion was answered by %s", a.start.Sub(deleted).Round(time.Millisecond), a.who)
			}
		}
	}
	if after < 20 {
		t.Errorf("only %d requests after the deletion", after)
	}

	// Once the worker hears of it, it stops the pod and finishes the deletion.
	api.thaw()
	testenv.Eventually(t, "the pod to be gone", func() bool {
		_, ok := c.Store.Get(store.Key{Kind: kinds.Pod, Namespace: "default", Name: "web-term"})
		return !ok
	})
}

// ingressWho asks the Ingress for / and returns which relay pod answered.
func ingressWho(base string) (string, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	who, _, _ := strings.Cut(strings.TrimPrefix(string(b), "who="), "\n")
	if resp.StatusCode != http.StatusOK || who == "" {
		return "", fmt.Errorf("%s %q", resp.Status, b)
	}
	return who, nil
}

// getJSON GETs url from the API server with the cluster token and decodes
// it.
func getJSON[T any](t *testing.T, url string) *T {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v T
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return &v
}

// freezableProxy forwards TCP connections to an address; frozen, it holds
// back everything the address sends, as a network that stopped delivering
// would.
type freezableProxy struct {
	addr   string
	mu     sync.Mutex
	cond   *sync.Cond
	frozen bool
}

func startFreezableProxy(t *testing.T, target string) *freezableProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezableProxy{addr: l.Addr().String()}
	p.cond = sync.NewCond(&p.mu)
	var (
		conns sync.WaitGroup
		mu    sync.Mutex
		open  []net.Conn
	)
	t.Cleanup(func() {
		p.thaw()
		l.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		conns.Wait()
	})
	go func() {
		for {
			down, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				defer down.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				mu.Lock()
				open = append(open, down, up)
				mu.Unlock()
				go func() { _, _ = io.Copy(up, down); up.Close() }()
				buf := make([]byte, 32<<10)
				for {
					n, err := up.Read(buf)
					if n > 0 {
						p.wait()
						if _, err := down.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *freezableProxy) freeze() { p.mu.Lock(); p.frozen = true; p.mu.Unlock() }

func (p *freezableProxy) thaw() {
	p.mu.Lock()
	p.frozen = false
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *freezableProxy) wait() {
	p.mu.Lock()
	for p.frozen {
		p.cond.Wait()
	}
	p.mu.Unlock()
}
