package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kube32/kube32/abi"
)

// The figures of a flood of anonymous event streams (docs/serve.md
// "Hostile clients"): how many the node holds, how it refuses the rest,
// and how long a new short request of each listener takes meanwhile.

var holdStreams = flag.Int("streams", 5000, "anonymous event streams to open at once")

// streamsPath is the event stream the flood opens, on an Ingress of its
// own.
const streamsPath = "/bench/events"

// runStreams opens -streams event streams of the Ingress from many
// loopback addresses, and measures new short requests while the held ones stay open.
func runStreams(s *server) []row {
	const fault = "anonymous event streams"
	ing := ingress("faults", "/bench/unused", networkingv1.PathTypeExact)
	obj := ing.Obj.(*networkingv1.Ingress)
	obj.Name = "bench-streams"
	obj.Annotations = map[string]string{abi.AnnotationEventStream: streamsPath + "=bench.streams"}
	if err := s.c.ApplyObject(obj); err != nil {
		return failed(fault, err)
	}
	if err := waitForStream(s.c.IngressURL() + streamsPath); err != nil {
		return failed(fault, err)
	}

	f := &streamFlood{base: s.c.IngressURL(), statuses: map[int]int{}}
	defer f.close()
	// 100 from the first address, more than one client may hold; 50 from
	// each of the others, fewer.
	const first, perIP = 100, 50
	addrs := f.open(*holdStreams, func(i int) string {
		k := 0
		if i >= first {
			k = 1 + (i-first)/perIP
		}
		return fmt.Sprintf("127.0.%d.%d", 1+k/250, 1+k%250)
	})
	if f.err != nil {
		return failed(fault, f.err)
	}
	asked := fmt.Sprintf("%d asked from %d addresses: held, refused 503, refused 429", *holdStreams, addrs)
	rows := []row{{fault, asked, fmt.Sprintf("%d, %d, %d", f.statuses[200], f.statuses[503], f.statuses[429])}}
	while := fmt.Sprintf(" while %d streams are held (median, max of 10)", f.statuses[200])
	for _, t := range []struct{ what, url string }{
		{"a new GET /readyz", s.c.APIURL() + "/readyz"},
		{"a new Ingress request", s.c.IngressURL() + "/check"},
		{"a new API list of pods", s.c.APIURL() + "/api/v1/namespaces/default/pods"},
	} {
		rows = append(rows, row{fault, t.what + while, newRequests(t.url, 10)})
	}
	return rows
}

// waitForStream waits until the Ingress serves the event stream at u.
func waitForStream(u string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the event stream %s: not served after 30 s (%v)", u, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// streamFlood is the flood's open connections and the statuses of their
// answers.
type streamFlood struct {
	base     string
	mu       sync.Mutex
	conns    []net.Conn
	statuses map[int]int
	err      error
}

// open opens n event streams, the i-th from the address from(i), and
// returns how many addresses it used. The connections stay open, the
// refused ones too, as an attacker keeps them.
func (f *streamFlood) open(n int, from func(int) string) int {
	u, _ := url.Parse(f.base)
	addrs := map[string]bool{}
	for i := range n {
		addrs[from(i)] = true
	}
	var g errgroup.Group
	g.SetLimit(32) // streams opening at once
	for i := range n {
		g.Go(func() error {
			status, c, err := openStream(from(i), u.Host)
			f.mu.Lock()
			defer f.mu.Unlock()
			if c != nil {
				f.conns = append(f.conns, c)
			}
			if err != nil && f.err == nil {
				f.err = fmt.Errorf("event stream %d from %s: %w", i, from(i), err)
			}
			f.statuses[status]++
			return nil
		})
	}
	g.Wait()
	return len(addrs)
}

func (f *streamFlood) close() {
	for _, c := range f.conns {
		c.Close()
	}
}

// openStream sends GET streamsPath on a new connection to host from the
// address from and returns the answer's status with the open connection.
func openStream(from, host string) (int, net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", host)
	if err != nil {
		return 0, nil, err
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", streamsPath); err != nil {
		return 0, c, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, c, err
	}
	return resp.StatusCode, c, nil
}

// newRequests times n GETs of u, each on a new connection, and returns
// their median and max, or the first failure.
func newRequests(u string, n int) string {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var took []time.Duration
	for range n {
		start := time.Now()
		resp, err := client.Get(u)
		if err != nil {
			return "failed: " + err.Error()
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "failed: " + resp.Status
		}
		took = append(took, time.Since(start))
	}
	longest := took[0]
	for _, d := range took {
		longest = max(longest, d)
	}
	return fmt.Sprintf("%s, %s", median(took), longest.Round(time.Microsecond))
}
