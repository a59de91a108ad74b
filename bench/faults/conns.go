package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// The two figures of hostile connections: a new request's latency while
// idle keep-alive connections are open, and a normal request's while slow
// bodies trickle to the same pod.

// runConns measures, through the Ingress to the faults pod, a new request
// while idle keep-alive connections are open and a normal request while
// slow bodies trickle.
func runConns(s *server) []row {
	idle := fmt.Sprintf("a new request while %d idle connections are open", *idleConns)
	d, err := runIdleConns(s.c.IngressURL(), "/check", *idleConns)
	rows := []row{{"idle connections", idle, figure(d, err)}}
	slow := fmt.Sprintf("a normal request while %d slow bodies trickle (median)", *slowClients)
	d, err = runSlowBodies(s.c.IngressURL(), "/check", "hello", *slowClients)
	return append(rows, row{"slow request bodies", slow, figure(d, err)})
}

func figure(d time.Duration, err error) string {
	if err != nil {
		return "failed: " + err.Error()
	}
	return d.String()
}

// runIdleConns opens n keep-alive connections to the Ingress at base, each
// after one GET of path, and returns how long a new client's GET of path
// takes while they are open.
func runIdleConns(base, path string, n int) (time.Duration, error) {
	u, err := url.Parse(base)
	if err != nil {
		return 0, err
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		first error
	)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	work := make(chan struct{})
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				c, err := net.Dial("tcp", u.Host)
				if err == nil {
					err = getOn(c, bufio.NewReader(c), path)
				}
				mu.Lock()
				if c != nil {
					conns = append(conns, c)
				}
				if err != nil && first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return 0, fmt.Errorf("opening %d idle connections: %w", n, first)
	}
	start := time.Now()
	resp, err := http.Get(base + path)
	if err != nil {
		return 0, fmt.Errorf("a new client with %d idle connections open: %w", n, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(start), nil
}

// getOn sends GET path on c and reads the whole answer.
func getOn(c net.Conn, r *bufio.Reader, path string) error {
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		return err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// runSlowBodies starts slow POSTs of path at base, each a 100 000-byte body
// sent one byte a second, and returns how long a normal POST of body takes
// meanwhile, as the median of 10.
func runSlowBodies(base, path, body string, slow int) (time.Duration, error) {
	u, err := url.Parse(base)
	if err != nil {
		return 0, err
	}
	done := make(chan struct{})
	defer close(done)
	for range slow {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		head := "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n"
		resp, err := (&rawClient{c, bufio.NewReader(c)}).do(head)
		if err != nil || resp.StatusCode != http.StatusContinue {
			return 0, fmt.Errorf("a slow POST: %v %v, want 100 Continue", resp, err)
		}
		go func() {
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Second):
					c.Write([]byte("x"))
				}
			}
		}()
	}
	var took []time.Duration
	for range 10 {
		start := time.Now()
		resp, err := http.Post(base+path, "text/plain", strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("a normal POST while %d bodies trickle: %s", slow, resp.Status)
		}
		took = append(took, time.Since(start))
	}
	return median(took), nil
}

type rawClient struct {
	net.Conn
	r *bufio.Reader
}

func (c *rawClient) do(head string) (*http.Response, error) {
	if _, err := io.WriteString(c, head); err != nil {
		return nil, err
	}
	return http.ReadResponse(c.r, nil)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}
