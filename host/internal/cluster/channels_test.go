package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/host/internal/ingress"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// chat is a chat pod on node receiving topics (none: no annotation), with
// CHANNEL_IPC when ipc.
func chat(name, node, topics string, ipc bool) manifest.Object {
	p := pinnedPod(name, name, node, "chat", corev1.Container{Env: []corev1.EnvVar{{Name: "WHO", Value: name}}})
	if topics != "" {
		p.Annotations = map[string]string{"kube32.io/event-topics": topics}
	}
	if ipc {
		p.Spec.Containers[0].SecurityContext = capabilities("CHANNEL_IPC")
	}
	return manifest.Object{Obj: p}
}

// chatIngress routes /chat to chat-cp and carries every event annotation.
func chatIngress() manifest.Object {
	prefix := networkingv1.PathTypePrefix
	return manifest.Object{Obj: &networkingv1.Ingress{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "Ingress"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "chat", Annotations: map[string]string{
			abi.AnnotationEventStream:      "/chat/events=room,kube32.presence; /chat/cluster=kube32.cluster ;/chat/stats=chat.stats",
			abi.AnnotationClusterTelemetry: "/chat/telemetry",
			abi.AnnotationStatsTopic:       "chat.stats",
		}},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{IngressRuleValue: networkingv1.IngressRuleValue{
			HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/chat", PathType: &prefix,
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "chat-cp",
					Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}}
}

// podDo sends a request to pod name at a node's pod server.
func podDo(t *testing.T, podURL, name, method, path, body string) string {
	t.Helper()
	req, _ := http.NewRequest(method, podURL+path, strings.NewReader(body))
	req.Header.Set("X-Kube32-Pod", "default/"+name)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s on %s: %d %s", method, path, name, resp.StatusCode, b)
	}
	return string(b)
}

// waitEvents polls pod name's GET /events until it holds every want line.
func waitEvents(t *testing.T, podURL, name string, want ...string) string {
	t.Helper()
	var got string
	testenv.EventuallyNil(t, "pod "+name+"'s events", func() error {
		got = podDo(t, podURL, name, http.MethodGet, "/events", "")
		for _, w := range want {
			if !strings.Contains(got, w+"\n") {
				return fmt.Errorf("no %q in:\n%s", w, got)
			}
		}
		return nil
	})
	return got
}

// sseFrame is one Server-Sent Events frame.
type sseFrame struct{ event, data string }

// openSSE connects to an event stream and returns its frames; the channel
// closes when the stream ends.
func openSSE(t *testing.T, url string) (<-chan sseFrame, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("GET %s: %s, Content-Type %q", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	frames := make(chan sseFrame, 1024)
	go func() {
		defer close(frames)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var f sseFrame
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if f.event != "" || data != nil {
					f.data = strings.Join(data, "\n")
					frames <- f
				}
				f, data = sseFrame{}, nil
			case strings.HasPrefix(line, "event: "):
				f.event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = append(data, strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	return frames, cancel
}

// waitFrame reads frames until one matches.
func waitFrame(t *testing.T, frames <-chan sseFrame, what string, match func(sseFrame) bool) sseFrame {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				t.Fatalf("the stream ended before %s", what)
			}
			if match(f) {
				return f
			}
		case <-timeout:
			t.Fatalf("no %s", what)
		}
	}
}

// waitFrames waits until every frame of want (by name) has come, in any
// order.
func waitFrames(t *testing.T, frames <-chan sseFrame, want map[string]func(sseFrame) bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for len(want) > 0 {
		select {
		case f, ok := <-frames:
			if !ok {
				t.Fatalf("the stream ended before %d more frames", len(want))
			}
			for what, match := range want {
				if match(f) {
					delete(want, what)
					break
				}
			}
		case <-timeout:
			t.Fatalf("no %v", slices.Sorted(maps.Keys(want)))
		}
	}
}

func presence(n int) func(sseFrame) bool {
	return func(f sseFrame) bool {
		return f.event == "presence" && f.data == fmt.Sprintf(`{"viewers":%d}`, n)
	}
}

func TestChannelsTwoNodes(t *testing.T) {
	objs := []manifest.Object{
		chat("chat-cp", ControlPlaneName, "room", true), chat("chat-w1", w1, "room,other", true),
		chat("mute", w1, "room", false), chat("deaf", ControlPlaneName, "", true),
		svc("chat-cp"), chatIngress(),
	}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "chat")), Objects: objs, Nodes: 2, Token: testToken}, "chat-cp", "chat-w1", "mute", "deaf")
	cp, wk := c.PodURL(), c.Workers[0].PodURL()

	t.Run("publish from a worker reaches both nodes in order", func(t *testing.T) {
		var want []string
		for i := range 20 {
			body := fmt.Sprintf(`{"type":"hello","n":%d}`, i)
			if got := podDo(t, wk, "chat-w1", http.MethodPost, "/pub/room", body); got != "rc=0" {
				t.Fatalf("publish: %s", got)
			}
			want = append(want, "room "+body)
		}
		for _, p := range []struct{ url, name string }{{cp, "chat-cp"}, {wk, "chat-w1"}} {
			got := waitEvents(t, p.url, p.name, prefixed(p.name, want)...)
			if i, j := strings.Index(got, `"n":3}`), strings.Index(got, `"n":13}`); i > j {
				t.Errorf("%s: out of order:\n%s", p.name, got)
			}
		}
	})

	t.Run("publish from the control plane; topics filter", func(t *testing.T) {
		podDo(t, cp, "chat-cp", http.MethodPost, "/pub/other", "for w1 only")
		podDo(t, cp, "deaf", http.MethodPost, "/pub/room", "from deaf")
		waitEvents(t, wk, "chat-w1", "chat-w1 other for w1 only", "chat-w1 room from deaf")
		got := waitEvents(t, cp, "chat-cp", "chat-cp room from deaf")
		testpods.Lacks(t, got, "for w1 only")
		testpods.Lacks(t, podDo(t, cp, "deaf", http.MethodGet, "/events", ""), "room")
		var logged bool
		if p, ok := c.Kubelet.Pod("default", "chat-cp"); ok {
			for _, l := range p.Logs() {
				logged = logged || l.Text == "event on room: from deaf"
			}
		}
		if !logged {
			t.Error(`chat-cp's log lacks "event on room: from deaf"`)
		}
	})

	t.Run("without CHANNEL_IPC: no publish, no delivery", func(t *testing.T) {
		if got, want := podDo(t, wk, "mute", http.MethodPost, "/pub/room", "x"), "rc="+testpods.Code(abi.ErrPerm); got != want {
			t.Errorf("publish without CHANNEL_IPC: %s, want %s (%v)", got, want, abi.ErrPerm)
		}
		podDo(t, wk, "chat-w1", http.MethodPost, "/pub/room", "after mute")
		waitEvents(t, wk, "chat-w1", "chat-w1 room after mute")
		if got := podDo(t, wk, "mute", http.MethodGet, "/events", ""); got != "" {
			t.Errorf("mute received %q", got)
		}
	})

	t.Run("the subscription survives a restart", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, wk+"/exit", nil)
		req.Header.Set("X-Kube32-Pod", "default/chat-w1")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		// Published while the pod restarts, or after: delivered to the new
		// instance, whose list starts empty.
		podDo(t, cp, "chat-cp", http.MethodPost, "/pub/room", "after restart")
		got := waitEvents(t, wk, "chat-w1", "chat-w1 room after restart")
		testpods.Lacks(t, got, "after mute")
		testenv.Eventually(t, "chat-w1 to restart after /exit", func() bool {
			o, _ := c.Store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "chat-w1"})
			st := o.(*corev1.Pod).Status.ContainerStatuses
			return len(st) == 1 && st[0].RestartCount >= 1
		})
	})

	t.Run("API endpoint with the token", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, c.APIURL()+"/apis/kube32.io/v1/channels/room", strings.NewReader("from curl"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("without the token: %s", resp.Status)
		}
		req, _ = http.NewRequest(http.MethodPost, c.APIURL()+"/apis/kube32.io/v1/channels/room", strings.NewReader("from curl"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		if resp, err = http.DefaultClient.Do(req); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("with the token: %s", resp.Status)
		}
		waitEvents(t, wk, "chat-w1", "chat-w1 room from curl")
	})

	t.Run("cluster telemetry", func(t *testing.T) {
		resp, err := http.Get(c.IngressURL() + "/chat/telemetry")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tel ingress.Telemetry
		if err := json.NewDecoder(resp.Body).Decode(&tel); err != nil {
			t.Fatal(err)
		}
		if len(tel.Nodes) != 2 || tel.Nodes[0].Name != ControlPlaneName || tel.Nodes[1].Name != w1 {
			t.Fatalf("nodes %+v", tel.Nodes)
		}
		if !tel.Nodes[0].Ready || tel.Nodes[0].IP != "127.0.0.1" || tel.Nodes[1].IP != "127.0.0.2" ||
			tel.Nodes[0].Pods != 2 || tel.Nodes[1].Pods != 2 || tel.Pods != 4 || tel.Running != 4 {
			t.Errorf("telemetry %+v", tel)
		}
		frames, stop := openSSE(t, c.IngressURL()+"/chat/cluster")
		defer stop()
		f := waitFrame(t, frames, "a cluster event", func(f sseFrame) bool { return f.event == "cluster" })
		if err := json.Unmarshal([]byte(f.data), &tel); err != nil || len(tel.Nodes) != 2 {
			t.Errorf("cluster event %q: %v", f.data, err)
		}
	})

	t.Run("event stream: names, presence, stats, deletion", func(t *testing.T) {
		a, stopA := openSSE(t, c.IngressURL()+"/chat/events")
		defer stopA()
		waitFrame(t, a, "presence 1", presence(1))
		b, stopB := openSSE(t, c.IngressURL()+"/chat/events")
		waitFrame(t, a, "presence 2 on a", presence(2))
		waitFrame(t, b, "presence 2 on b", presence(2))

		podDo(t, wk, "chat-w1", http.MethodPost, "/pub/room", `{"type":"joined","who":"w1"}`)
		podDo(t, cp, "chat-cp", http.MethodPost, "/pub/room", `{"t":"tick"}`)
		podDo(t, cp, "chat-cp", http.MethodPost, "/pub/room", "two\nlines")
		// The worker's publish reaches the control plane's sequencer over
		// HTTP, so it may be ordered after the control plane's own two.
		for _, s := range []<-chan sseFrame{a, b} {
			waitFrames(t, s, map[string]func(sseFrame) bool{
				"joined":     func(f sseFrame) bool { return f.event == "joined" && f.data == `{"type":"joined","who":"w1"}` },
				"tick":       func(f sseFrame) bool { return f.event == "tick" && f.data == `{"t":"tick"}` },
				"plain text": func(f sseFrame) bool { return f.event == "" && f.data == "two\nlines" },
			})
		}
		stopB()
		waitFrame(t, a, "presence 1 after b left", presence(1))

		stats, stopStats := openSSE(t, c.IngressURL()+"/chat/stats")
		defer stopStats()
		f := waitFrame(t, stats, "stats", func(f sseFrame) bool {
			var s struct {
				T, Ingress string
				RPS        int
				Viewers    int
			}
			return f.event == "stats" && json.Unmarshal([]byte(f.data), &s) == nil && s.T == "stats" &&
				s.Ingress == "default/chat" && s.Viewers == 2
		})
		t.Logf("stats frame: %s", f.data)

		c.Store.Delete(store.Key{Kind: "Ingress", Namespace: "default", Name: "chat"})
		for _, s := range []<-chan sseFrame{a, stats} {
			timeout := time.After(30 * time.Second)
		drain:
			for {
				select {
				case _, ok := <-s:
					if !ok {
						break drain
					}
				case <-timeout:
					t.Fatal("the stream did not end when its Ingress was deleted")
				}
			}
		}
	})
}

// prefixed puts "<name> " in front of each line.
func prefixed(name string, lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = name + " " + l
	}
	return out
}
