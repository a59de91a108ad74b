package channel

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// next waits for n messages of s.
func next(t *testing.T, s *Subscription, n int) []Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got []Message
	for len(got) < n {
		ms, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("after %d of %d messages: %v", len(got), n, err)
		}
		got = append(got, ms...)
	}
	return got
}

func TestHubFanOutAndFilter(t *testing.T) {
	h := New(Options{})
	a := h.Subscribe("a", []string{"x"}, 0)
	b := h.Subscribe("b", []string{"x", "y"}, 0)
	all := h.Subscribe("all", nil, 0)
	defer a.Close()
	defer b.Close()
	for i, topic := range []string{"x", "y", "z", "x"} {
		if err := h.Publish(context.Background(), "p", topic, []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	got := func(ms []Message) string {
		var parts []string
		for _, m := range ms {
			parts = append(parts, m.Topic+"="+string(m.Data))
		}
		return strings.Join(parts, " ")
	}
	if s := got(next(t, a, 2)); s != "x=0 x=3" {
		t.Errorf("a got %s", s)
	}
	if s := got(next(t, b, 3)); s != "x=0 y=1 x=3" {
		t.Errorf("b got %s", s)
	}
	if s := got(next(t, all, 4)); s != "x=0 y=1 z=2 x=3" {
		t.Errorf("all got %s", s)
	}
	if n := h.Subscribers("x"); n != 3 {
		t.Errorf("%d subscribers of x, want 3", n)
	}
	all.Close()
	all.Close() // twice is fine
	if _, err := all.Next(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if n := h.Subscribers("z"); n != 0 {
		t.Errorf("%d subscribers of z after Close, want 0", n)
	}
}

func TestHubDropsOldestAndLogs(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	h := New(Options{Logf: func(f string, a ...any) { mu.Lock(); lines = append(lines, fmt.Sprintf(f, a...)); mu.Unlock() }})
	s := h.Subscribe("pod default/slow", []string{"t"}, 3)
	defer s.Close()
	for i := range 10 {
		h.Publish(context.Background(), "p", "t", []byte(fmt.Sprint(i)))
	}
	ms := s.Take()
	if len(ms) != 3 || string(ms[0].Data) != "7" || string(ms[2].Data) != "9" {
		t.Errorf("kept %v, want the newest three", ms)
	}
	if s.Dropped() != 7 {
		t.Errorf("dropped %d, want 7", s.Dropped())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) == 0 || !strings.Contains(lines[0], "pod default/slow is behind on t") {
		t.Errorf("log lines %q", lines)
	}
}

func TestPublishRefuses(t *testing.T) {
	h := New(Options{})
	for _, c := range []struct {
		topic string
		data  []byte
		code  abi.Errno
	}{
		{"", nil, abi.ErrInval}, {"a b", nil, abi.ErrInval}, {"a,b", nil, abi.ErrInval},
		{strings.Repeat("t", maxTopicLen+1), nil, abi.ErrInval}, {"ok", make([]byte, maxDataLen+1), abi.ErrTooBig},
	} {
		var code abi.Errno
		if err := h.Publish(context.Background(), "p", c.topic, c.data); !errors.As(err, &code) || code != c.code {
			t.Errorf("Publish(%.10q, %d bytes) = %v, want code %d", c.topic, len(c.data), err, c.code)
		}
	}
	if topics, err := ParseTopics(" a, b ,,c"); err != nil || strings.Join(topics, "|") != "a|b|c" {
		t.Errorf("ParseTopics: %q %v", topics, err)
	}
}

// TestUpstream runs a control plane hub behind its Handler on real HTTP and
// two worker hubs following it: every publish reaches every node once, in
// one order.
func TestUpstream(t *testing.T) {
	cp := New(Options{})
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer tok" {
				http.Error(w, "Unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	srv := httptest.NewServer(auth(Handler(cp)))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	var workers []*Hub
	for i := range 2 {
		w := New(Options{Upstream: &Upstream{API: srv.URL, Token: "tok", Node: fmt.Sprint("w", i)}})
		workers = append(workers, w)
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	testenv.Eventually(t, "the workers to follow the control plane", func() bool {
		return workers[0].Connected() && workers[1].Connected()
	})
	subs := []*Subscription{cp.Subscribe("cp", []string{"t"}, 100), workers[0].Subscribe("w0", []string{"t"}, 100), workers[1].Subscribe("w1", []string{"t"}, 100)}
	for i := range 10 {
		from := workers[i%2]
		if i%3 == 0 {
			from = cp
		}
		if err := from.Publish(ctx, "p", "t", []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	var orders []string
	for _, s := range subs {
		var order []string
		for _, m := range next(t, s, 10) {
			order = append(order, string(m.Data))
		}
		orders = append(orders, strings.Join(order, ","))
	}
	if orders[0] != orders[1] || orders[0] != orders[2] {
		t.Errorf("nodes saw different orders: %q", orders)
	}
	// Each worker's own publishes keep their order.
	for _, seq := range [][]string{{"1", "5", "7"}, {"2", "4", "8"}} {
		last := -1
		for _, d := range seq {
			i := strings.Index(","+orders[0]+",", ","+d+",")
			if i < last {
				t.Errorf("order %s breaks the publisher's order %v", orders[0], seq)
			}
			last = i
		}
	}

	resp, err := http.Post(srv.URL+abi.ChannelsPath+"/t", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %s", resp.Status)
	}
}
