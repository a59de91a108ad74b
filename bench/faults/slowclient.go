package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kube32/kube32/host"

	"github.com/kube32/kube32/abi"
)

var (
	slowReaders = flag.Int("readers", 4, "clients that ask for a large answer and read nothing (half to each respflood pod)")
	readerBytes = flag.Int("reader-bytes", 32<<20, "bytes each of them asks for")
)

// respfloodPods are the respflood pods (internal/testkit/testpods/c/respflood.c):
// one on the control plane, one on worker 1, each reached at its node's
// pod port.
func (s *server) respfloodPods() []respfloodPod {
	return []respfloodPod{
		{"respflood", s.c.PodURL(), func() (*host.Pod, bool) { return s.c.Pod("default", "respflood") }},
		{"respflood-w", s.c.Workers()[0].PodURL(), func() (*host.Pod, bool) { return s.c.Workers()[0].Pod("default", "respflood-w") }},
	}
}

type respfloodPod struct {
	name, base string
	runtime    func() (*host.Pod, bool)
}

// runSlowClients has -readers clients ask the respflood pods for
// -reader-bytes each, all at once, and read nothing. It reports the pods'
// restarts and deadline kills meanwhile (both 0: a slow client costs a
// pod nothing, docs/serve.md "Hostile clients"), the pods' K32_ERR_IO, the
// closed connections, the time until every client was dropped, and the
// next answer.
func runSlowClients(s *server) []row {
	fault := fmt.Sprintf("%d clients reading nothing of %d MiB", *slowReaders, *readerBytes>>20)
	pods := s.respfloodPods()
	restartsBefore := map[string]int32{}
	logsBefore := map[string]int{}
	for _, p := range pods {
		rt, ok := p.runtime()
		if !ok {
			return failed(fault, fmt.Errorf("no pod %s", p.name))
		}
		restartsBefore[p.name], logsBefore[p.name] = rt.Status().RestartCount, len(rt.Logs())
	}

	begin := time.Now()
	conns := make([]net.Conn, *slowReaders)
	for i := range conns {
		c, err := askAndReadNothing(pods[i%len(pods)], *readerBytes)
		if err != nil {
			return failed(fault, err)
		}
		defer c.Close()
		conns[i] = c
	}
	// The pods log each K32_ERR_IO write: wait for all of them (the node
	// waits a callback deadline, 10 s, for each client; one pod serves its
	// clients one after the other).
	restarts, kills, gotIO := 0, 0, 0
	deadline := time.Now().Add(time.Duration(*slowReaders+2) * 12 * time.Second)
	for gotIO < *slowReaders && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		restarts, kills, gotIO = 0, 0, 0
		for _, p := range pods {
			rt, _ := p.runtime()
			restarts += int(rt.Status().RestartCount - restartsBefore[p.name])
			for _, l := range rt.Logs()[logsBefore[p.name]:] {
				switch {
				case strings.Contains(l.Text, "exceeded"):
					kills++
				case l.Text == fmt.Sprintf("big wrote=0 err=%d", abi.ErrIO):
					gotIO++
				}
			}
		}
	}
	allDropped := time.Since(begin)
	closed := 0
	for _, c := range conns {
		if droppedByNode(c, *readerBytes) {
			closed++
		}
	}
	start := time.Now()
	status, body, err := getPod(pods[0], "/")
	next := time.Since(start)
	if err != nil {
		return failed(fault, err)
	}
	return []row{
		{fault, "pod restarts / 504s (deadline kills) meanwhile", fmt.Sprintf("%d / %d", restarts, kills)},
		{fault, "pods told K32_ERR_IO / connections closed", fmt.Sprintf("%d / %d of %d", gotIO, closed, *slowReaders)},
		{fault, "until every client was dropped", allDropped.Round(time.Millisecond).String()},
		{fault, "the next request", fmt.Sprintf("%d %q in %s", status, strings.TrimSpace(body), next.Round(time.Microsecond))},
	}
}

// askAndReadNothing asks p for n bytes on a connection that reads
// nothing, with a small receive buffer.
func askAndReadNothing(p respfloodPod, n int) (net.Conn, error) {
	u, _ := url.Parse(p.base)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	if _, err := fmt.Fprintf(conn, "GET /big?%d HTTP/1.1\r\nHost: x\r\n%s: default/%s\r\n\r\n", n, abi.HeaderPod, p.name); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// droppedByNode reports whether the node has closed conn, short of the n
// bytes asked for: reading it now ends within seconds.
func droppedByNode(conn net.Conn, n int) bool {
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout()) && got < int64(n)
}

// getPod sends GET path to p at its node's pod port.
func getPod(p respfloodPod, path string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodGet, p.base+path, nil)
	req.Header.Set(abi.HeaderPod, "default/"+p.name)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}
