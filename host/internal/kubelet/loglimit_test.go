package kubelet

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

var markerLine = regexp.MustCompile(`^\[LOG\] (\d+) lines? dropped \(rate limit\)$`)

// logCount splits a pod's log into the lines the pod wrote and the markers:
// how many lines and bytes of text it delivered, how many the markers say
// were dropped, and how many markers there were.
func logCount(lines []string) (delivered, bytes, dropped, markers int) {
	for _, l := range lines {
		if m := markerLine.FindStringSubmatch(l); m != nil {
			n, _ := strconv.Atoi(m[1])
			dropped += n
			markers++
			continue
		}
		delivered++
		bytes += len(l)
	}
	return delivered, bytes, dropped, markers
}

// A pod that logs in a loop (internal/testkit/testpods/c/logflood.c) gets its burst,
// then its rate, and a marker that counts the rest; the node's log (serve's
// output) and the API's pods/log endpoint (kubectl logs) see the same lines.
// Another pod's log is untouched.
func TestLogFloodIsRateLimited(t *testing.T) {
	wasm := testpods.Fixture(t, "logflood", 65536)
	var mu sync.Mutex
	nodeLog := map[string][]string{}
	start := time.Now()
	n := startLoggingNode(t, imageTree(map[string][]byte{"logflood": wasm}), func(_, name string, l pod.Line) {
		mu.Lock()
		defer mu.Unlock()
		nodeLog[name] = append(nodeLog[name], l.Text)
	})
	nodeLines := func(name string) []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(nodeLog[name])
	}
	api := httptest.NewServer(apiserver.New(apiserver.Config{Store: n.store, Logs: n.kubelet}))
	t.Cleanup(api.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: api.URL})
	if err != nil {
		t.Fatal(err)
	}
	apiLines := func(name string) []string {
		b, err := client.CoreV1().Pods("default").GetLogs(name, &corev1.PodLogOptions{}).DoRaw(context.Background())
		if err != nil {
			t.Fatalf("logs of %s: %v", name, err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	admission.Admit(ns)
	n.store.Apply(ns)
	// flood runs out of bytes first, chatty of lines.
	floods := []struct {
		name           string
		written, bytes int
	}{{"flood", 4000, 4096}, {"chatty", 4000, 32}}
	for _, name := range []string{"flood", "chatty", "quiet"} {
		n.store.Apply(testPod(name, "wasm://embedded/logflood"))
	}
	for _, name := range []string{"flood", "chatty", "quiet"} {
		n.waitPhase(t, name, corev1.PodRunning)
	}
	for _, f := range floods {
		if status, body := n.call(t, "default/"+f.name, fmt.Sprintf("/?%d,%d", f.written, f.bytes)); status != http.StatusOK || body != fmt.Sprintf("written=%d", f.written) {
			t.Fatalf("%s: %d %q, want written=%d", f.name, status, body, f.written)
		}
	}
	if status, body := n.call(t, "default/quiet", "/?10,20"); status != http.StatusOK || body != "written=10" {
		t.Fatalf("quiet: %d %q, want written=10", status, body)
	}

	for _, f := range floods {
		t.Run(f.name, func(t *testing.T) {
			var got []string
			testenv.Eventually(t, "the markers to count every line "+f.name+" wrote", func() bool {
				got = nodeLines(f.name)
				delivered, _, dropped, _ := logCount(got)
				// The pod's own "[POD] ... started" line is delivered too.
				return delivered+dropped == f.written+1
			})
			elapsed := time.Since(start).Seconds()
			delivered, bytes, dropped, markers := logCount(got)
			t.Logf("%d lines (%d bytes) written: %d lines (%d bytes) delivered, %d dropped, %d markers, in %.1fs",
				f.written, f.written*f.bytes, delivered, bytes, dropped, markers, elapsed)
			if max := abi.LogBurstLines + abi.LogRateLines*elapsed; float64(delivered) > max {
				t.Errorf("%d lines delivered, more than the burst and rate allow (%.0f)", delivered, max)
			}
			if max := abi.LogBurstBytes + abi.LogRateBytes*elapsed; float64(bytes) > max {
				t.Errorf("%d bytes delivered, more than the burst and rate allow (%.0f)", bytes, max)
			}
			if max := 1 + elapsed/logMarkerInterval.Seconds(); markers == 0 || float64(markers) > max {
				t.Errorf("%d markers, want 1 to %.0f", markers, max)
			}
			// The burst goes first, then lines in their order.
			last := -1
			for _, l := range got {
				var i int
				if _, err := fmt.Sscanf(l, "flood %d ", &i); err != nil {
					continue
				}
				if i <= last || last == -1 && i != 0 {
					t.Fatalf("line %d after line %d", i, last)
				}
				last = i
			}
			if gotAPI := apiLines(f.name); !slices.Equal(gotAPI, got) {
				t.Errorf("kubectl logs %s and the node's log differ:\n%d lines: %.300q\n%d lines: %.300q", f.name, len(gotAPI), gotAPI, len(got), got)
			}
		})
	}

	quiet := nodeLines("quiet")
	if delivered, _, dropped, _ := logCount(quiet); delivered != 11 || dropped != 0 {
		t.Errorf("quiet pod's log: %d lines, %d dropped, want its start and 10 lines: %q", delivered, dropped, quiet)
	}
	if gotAPI := apiLines("quiet"); !slices.Equal(gotAPI, quiet) {
		t.Errorf("kubectl logs quiet = %q, want the node's lines %q", gotAPI, quiet)
	}
}

// The history kept for kubectl logs keeps the newest lines within both of
// its bounds.
func TestLogHistoryIsBounded(t *testing.T) {
	var h history
	for i := range 2 * abi.LogHistoryLines {
		h.add(pod.Line{Text: strconv.Itoa(i)})
	}
	if lines := h.snapshot(); len(lines) != abi.LogHistoryLines || lines[0].Text != strconv.Itoa(abi.LogHistoryLines) {
		t.Errorf("after %d short lines: %d kept, the first %q; want the last %d", 2*abi.LogHistoryLines, len(lines), lines[0].Text, abi.LogHistoryLines)
	}
	long := strings.Repeat("x", 8<<10)
	for range abi.LogHistoryLines {
		h.add(pod.Line{Text: long})
	}
	if want := abi.LogHistoryBytes / len(long); len(h.snapshot()) != want || h.bytes != want*len(long) {
		t.Errorf("after %d lines of 8 KiB: %d lines, %d bytes kept, want %d lines", abi.LogHistoryLines, len(h.snapshot()), h.bytes, want)
	}
}
