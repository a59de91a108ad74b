package cluster

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// The connection classes of docs/serve.md "Hostile clients": streams
// never take the slots kept for short requests, public streams (the
// Ingress's event streams) hold at most their share of the stream class,
// and one client address at most httplimit.MaxPublicStreamsPerClient.

// hangCheck bounds each short request of these tests: not a speed
// assertion, only a guard against an answer that never comes.
const hangCheck = 10 * time.Second

// dialFrom is a raw connection to the server of base from the loopback
// address from.
func dialFrom(t *testing.T, from, base string) (*rawConn, error) {
	u, _ := url.Parse(base)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: hangCheck}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c), host: u.Host}, nil
}

// openStream sends GET path on a new connection from the address from and
// returns the answer's status, and on 200 the stream's body, left open.
// A refusal must carry Retry-After.
func openStream(t *testing.T, from, base, path string) (int, *bufio.Reader, error) {
	c, err := dialFrom(t, from, base)
	if err != nil {
		return 0, nil, err
	}
	c.SetDeadline(time.Now().Add(hangCheck))
	resp, err := c.do("GET " + path + " HTTP/1.1\r\nHost: " + c.host + "\r\n\r\n")
	c.SetDeadline(time.Time{})
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return 200, bufio.NewReader(resp.Body), nil
	}
	io.Copy(io.Discard, resp.Body)
	if got, want := resp.Header.Get("Retry-After"), strconv.Itoa(int(httplimit.StreamRetryAfter.Seconds())); got != want {
		return resp.StatusCode, nil, fmt.Errorf("%s refused with Retry-After %q, want %q", resp.Status, got, want)
	}
	return resp.StatusCode, nil, nil
}

// streamBudget is the connection budget of the attack's cluster: the
// default, or less when the open-file limit (raised to its hard limit)
// has no room for the budget, the attack's own sockets and the cluster's.
func streamBudget(t *testing.T) int {
	limit := openFileLimit(t)
	n := min(httplimit.DefaultMaxConns(), (int(limit)-1000)/2)
	if n < 1000 {
		t.Fatalf("the open-file limit %d leaves room for a budget of %d connections; the test needs 1000", limit, n)
	}
	return n
}

// attacker is the loopback address of the attack's i-th connection:
// perIP connections from each of 127.0.1.1, 127.0.1.2, ...
func attacker(i, perIP int) string {
	k := i / perIP
	return fmt.Sprintf("127.0.%d.%d", 1+k/250, 1+k%250)
}

func TestAnonymousEventStreamsCannotStarveShortRequests(t *testing.T) {
	budget := streamBudget(t)
	c := startRelays(t, Options{MaxConnections: budget})
	// More event streams than the whole budget, from enough addresses that
	// the per-client cap stops none of them: only the public share holds.
	attempts, perIP := budget+100, httplimit.MaxPublicStreamsPerClient-4
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		held     *bufio.Reader
		failures []error
	)
	work := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				status, body, err := openStream(t, attacker(i, perIP), c.IngressURL(), "/events")
				mu.Lock()
				statuses[status]++
				if err != nil {
					failures = append(failures, fmt.Errorf("stream %d: %w", i, err))
				}
				if body != nil && held == nil {
					held = body
				}
				mu.Unlock()
			}
		}()
	}
	for i := range attempts {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range failures[:min(len(failures), 5)] {
		t.Error(err)
	}
	maxPublic := c.conns.MaxPublicStreams()
	t.Logf("%d event streams asked from %d addresses: %v (status: count); the budget is %d connections, %d public streams",
		attempts, (attempts+perIP-1)/perIP, statuses, budget, maxPublic)
	if statuses[200] != maxPublic || statuses[503] != attempts-maxPublic {
		t.Errorf("got %v, want %d streams held and %d refused 503", statuses, maxPublic, attempts-maxPublic)
	}

	// While they are held, short requests of every listener are answered.
	client := &http.Client{Timeout: hangCheck}
	get := func(what, url string, header ...string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if len(header) == 2 {
			req.Header.Set(header[0], header[1])
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Errorf("%s while %d event streams are held: %v", what, maxPublic, err)
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Errorf("%s while %d event streams are held: %s %s", what, maxPublic, resp.Status, b)
		}
		return string(b)
	}
	get("GET /readyz", c.APIURL()+"/readyz")
	if got := get("the Ingress's route /a", c.IngressURL()+"/a"); !strings.Contains(got, "who=a") {
		t.Errorf("the Ingress's route /a answered %q", got)
	}
	get("the control plane's pod port", c.PodURL()+"/", abi.HeaderPod, "default/a")
	get("the worker's pod port", c.Workers[0].PodURL()+"/", abi.HeaderPod, "default/w")
	api, err := kubernetes.NewForConfig(&rest.Config{Host: c.APIURL(), Timeout: hangCheck})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := api.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) != 2 {
		t.Errorf("client-go lists the pods while %d event streams are held: %v %v", maxPublic, pods, err)
	}

	// The API's streams keep their part of the stream class; another
	// public stream is refused, and the held ones still stream.
	watch := dialRaw(t, c.APIURL()).stream(t, "/api/v1/namespaces/default/services?watch=1")
	if status, _, err := openStream(t, "127.0.3.1", c.IngressURL(), "/events"); status != 503 || err != nil {
		t.Errorf("a new event stream with the public share full: %d %v, want 503", status, err)
	}
	c.Store.Apply(svc("late").Obj)
	readUntil(t, watch, `"late"`)
	if err := c.Channels.Publish(context.Background(), "test", "room", []byte("still held")); err != nil {
		t.Fatal(err)
	}
	if held == nil {
		t.Fatal("no event stream was held")
	}
	readUntil(t, held, "still held")
}

func TestOneClientAddressHoldsAtMostMaxPublicStreamsPerClient(t *testing.T) {
	c := startRelays(t, Options{})
	var first *bufio.Reader
	for i := range httplimit.MaxPublicStreamsPerClient {
		status, body, err := openStream(t, "127.0.2.1", c.IngressURL(), "/events")
		if status != 200 || err != nil {
			t.Fatalf("event stream %d of one client: %d %v", i, status, err)
		}
		if first == nil {
			first = body
		}
	}
	if status, _, err := openStream(t, "127.0.2.1", c.IngressURL(), "/events"); status != http.StatusTooManyRequests || err != nil {
		t.Fatalf("event stream %d of one client: %d %v, want 429", httplimit.MaxPublicStreamsPerClient+1, status, err)
	}
	// Another address is not held back, nor the same address's short
	// requests.
	if status, _, err := openStream(t, "127.0.2.2", c.IngressURL(), "/events"); status != 200 || err != nil {
		t.Errorf("another client's event stream: %d %v", status, err)
	}
	short, err := dialFrom(t, "127.0.2.1", c.IngressURL())
	if err != nil {
		t.Fatal(err)
	}
	if got := short.get(t, "/a"); !strings.Contains(got, "who=a") {
		t.Errorf("the client's short request got %q", got)
	}
	// The held streams still stream.
	if err := c.Channels.Publish(context.Background(), "test", "room", []byte("to the first")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, first, "to the first")
	if _, public := c.conns.Streams(); public != httplimit.MaxPublicStreamsPerClient+1 {
		t.Errorf("%d public streams counted, want %d: the refused one counts nowhere", public, httplimit.MaxPublicStreamsPerClient+1)
	}
}

// Each stream of the API and the Ingress counts in the stream class while
// it is open, and gives its place back when it ends.
func TestWatchesFollowedLogsAndEventStreamsCountAsStreams(t *testing.T) {
	c := startRelays(t, Options{})
	all0, public0 := c.conns.Streams() // the workers' own watches and channel stream
	streams := []struct {
		base, path string
		public     bool
	}{
		{c.IngressURL(), "/events", true},
		{c.APIURL(), "/api/v1/namespaces/default/services?watch=1", false},
		{c.APIURL(), "/api/v1/namespaces/default/pods/a/log?follow=true", false},
		{c.APIURL(), abi.UIPath + "events", false},
	}
	var open []*rawConn
	publicOpen := 0
	for _, s := range streams {
		rc := dialRaw(t, s.base)
		rc.stream(t, s.path)
		open = append(open, rc)
		if s.public {
			publicOpen++
		}
		all, public := c.conns.Streams()
		if all != all0+len(open) || public != public0+publicOpen {
			t.Errorf("with %s open: %d streams (%d public), want %d (%d)", s.path, all, public, all0+len(open), public0+publicOpen)
		}
	}
	for _, rc := range open {
		rc.Close()
	}
	testenv.Eventually(t, "the closed streams to give their places back", func() bool {
		all, public := c.conns.Streams()
		return all == all0 && public == public0
	})
}
