package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// The Done-when figures of this test: how many clients hold a pod's
// answer without reading it, its size, for how long, and how often and
// how fast another client must be answered meanwhile.
const (
	unreadClients = 4
	unreadAnswer  = 8 << 20
	unreadHold    = 25 * time.Second
	probeEvery    = 250 * time.Millisecond
	probeWithin   = time.Second
)

// Clients that ask a pod for an 8 MiB answer and never read it cost the
// pod nothing (docs/serve.md, "Hostile clients"): the node takes each
// answer into a spool (memory up to abi.RespBufferMemory, then a temporary
// file) and the pod's callback ends at once. Four such clients on each of
// the Ingress to a pod of the control plane (in-process), the Ingress to a
// pod of a worker (through nodehop) and a worker's pod port, held 25 s,
// while another client asks each of those pods every 250 ms: every answer
// arrives, each within a second, no pod restarts, the node holds the
// answers in memory only up to the spool's limit (its live heap grows by
// less than the answers' size, and the rest is in the temporary files),
// and the files are gone once the clients are.
func TestUnreadAnswersCostThePodNothing(t *testing.T) {
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "respflood")), Nodes: 2,
		Objects: []manifest.Object{respflood("flood", ControlPlaneName), respflood("wflood", w1), svc("flood"), svc("wflood"),
			routes(map[string]string{"/": "flood"}), hostIngress("wflood.test", "wflood")}}, "flood", "wflood")
	paths := []struct {
		name, base string
		headers    []string
	}{
		{"ingress", c.IngressURL(), []string{"Host: x"}},
		{"ingress to a worker", c.IngressURL(), []string{"Host: wflood.test"}},
		{"worker pod port", c.Workers[0].PodURL(), []string{"Host: x", abi.HeaderPod + ": default/wflood"}},
	}
	// Each path answers, and a big answer read whole warms the node's pools.
	for _, p := range paths {
		if err := probe(p.base+fmt.Sprintf("/big?%d", unreadAnswer), p.headers, unreadAnswer); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
	}
	heapBefore := liveHeap()

	ctx, cancel := context.WithTimeout(context.Background(), unreadHold)
	defer cancel()
	var wg sync.WaitGroup
	results := make([][]error, len(paths))
	slowest := make([]time.Duration, len(paths))
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(probeEvery)
			defer tick.Stop()
			for n := 0; ; n++ {
				start := time.Now()
				err := probe(p.base+fmt.Sprintf("/next?%d", n), p.headers, len("ok\n"))
				took := time.Since(start)
				slowest[i] = max(slowest[i], took)
				if err == nil && took > probeWithin {
					err = fmt.Errorf("request %d answered after %v", n, took.Round(time.Millisecond))
				}
				results[i] = append(results[i], err)
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
	}
	for _, p := range paths {
		for range unreadClients {
			conn := dialUnread(t, p.base)
			if _, err := fmt.Fprintf(conn, "GET /big?%d HTTP/1.1\r\n%s\r\n\r\n", unreadAnswer, strings.Join(p.headers, "\r\n")); err != nil {
				t.Fatal(err)
			}
		}
	}

	// While the clients hold their answers: the node's memory.
	dir := os.TempDir()
	var heapMax, filesMax int64
	openMax := 0
	for range 8 {
		time.Sleep(time.Second)
		heapMax = max(heapMax, liveHeap()-heapBefore)
		open, size := spoolFiles(t, dir)
		openMax, filesMax = max(openMax, open), max(filesMax, size)
	}
	wg.Wait()

	for i, p := range paths {
		failed := 0
		for _, err := range results[i] {
			if err != nil {
				failed++
				t.Errorf("%s: %v", p.name, err)
			}
		}
		t.Logf("%s: %d requests, %d failed, the slowest answered in %v", p.name, len(results[i]), failed, slowest[i].Round(time.Millisecond))
		if len(results[i]) < int(unreadHold/probeEvery)*3/4 {
			t.Errorf("%s: only %d requests in %v", p.name, len(results[i]), unreadHold)
		}
	}
	for _, name := range []string{"flood", "wflood"} {
		if cs := getPod(t, c.Store, name).Status.ContainerStatuses; len(cs) != 1 || cs[0].RestartCount != 0 {
			t.Errorf("pod %s container statuses %+v, want 0 restarts", name, cs)
		}
	}

	unread := int64(len(paths) * unreadClients)
	t.Logf("while %d clients held %d MiB answers: the live heap grew by at most %d KiB; %d answer files held at most %d KiB",
		unread, unreadAnswer>>20, heapMax>>10, openMax, filesMax>>10)
	// In memory: at most the spool's limit per answer, and some room for
	// the rest of the process (its own figures move by a few MiB).
	if limit := unread*abi.RespBufferMemory + 16<<20; heapMax > limit {
		t.Errorf("the live heap grew by %d MiB, past %d MiB", heapMax>>20, limit>>20)
	}
	// The rest of the answers the kernel did not take was in the files.
	if runtime.GOOS == "linux" && (openMax == 0 || filesMax < 4<<20 || filesMax > unread*abi.RespBufferFile) {
		t.Errorf("%d answer files of %d KiB at most, want some, within %d KiB", openMax, filesMax>>10, unread*abi.RespBufferFile>>10)
	}
	testenv.EventuallyNil(t, "the answers' files to be closed", func() error {
		if open, _ := spoolFiles(t, dir); open > 0 {
			return fmt.Errorf("%d still open", open)
		}
		return nil
	})
}

// probe GETs url with headers on a new connection and checks that it is
// answered 200 with a body of size bytes.
func probe(url string, headers []string, size int) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, ": ")
		if name == "Host" {
			req.Host = value
		} else {
			req.Header.Set(name, value)
		}
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK || n != int64(size) {
		return fmt.Errorf("GET %s: %s, %d bytes (%v), want 200 and %d bytes", req.URL.Path, resp.Status, n, err, size)
	}
	return nil
}

// liveHeap is the heap the process's objects hold after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// spoolFiles counts the answers' temporary files (httplimit.Spool) that
// the process holds open in dir, and their bytes together; on systems
// without /proc/self/fd, none.
func spoolFiles(t *testing.T, dir string) (open int, size int64) {
	if runtime.GOOS != "linux" {
		return 0, 0
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		link := filepath.Join("/proc/self/fd", fd.Name())
		target, err := os.Readlink(link)
		if err != nil || !strings.HasPrefix(target, filepath.Join(dir, "kube32-answer-")) {
			continue
		}
		open++
		if fi, err := os.Stat(link); err == nil {
			size += fi.Size()
		}
	}
	return open, size
}
