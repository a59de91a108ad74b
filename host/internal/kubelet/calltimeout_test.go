package kubelet

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// "No answer within timeout_ms gives K32_ERR_TIMEOUT", on the same node
// too (docs/calls.md, "Timeouts"): relay pod a calls the sleeper pod s of
// its node in-process with timeout_ms 2000 while s sleeps 8 s or loops
// forever, under the default 10 s callback deadline, or through relay pod
// b. a gets K32_ERR_TIMEOUT and is not restarted; s, stopped with the
// call, serves the next request on a fresh instance without counting a
// restart.
func TestSameNodeCallEndsAtTheCallersTimeout(t *testing.T) {
	n := startNodeWith(t, imageTree(map[string][]byte{
		"relay":   testpods.Fixture(t, "relay", 65536),
		"sleeper": testpods.Fixture(t, "sleeper", 65536),
	}), nil, 10*time.Second)
	sleeper := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s", Labels: map[string]string{"app": "s"}},
		Spec: corev1.PodSpec{NodeName: nodeName, RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/sleeper"}}},
	}
	n.store.Apply(relayPod("default", "a"))
	n.store.Apply(relayPod("default", "b"))
	n.store.Apply(relayService("default", "b", "b"))
	n.store.Apply(sleeper)
	n.store.Apply(relayService("default", "s", "s"))
	for _, name := range []string{"a", "b", "s"} {
		testenv.Eventually(t, "pod "+name+" ready", func() bool {
			o, ok := n.store.Get(store.Key{Kind: "Pod", Namespace: "default", Name: name})
			return ok && podReady(o.(*corev1.Pod))
		})
	}
	a, _ := n.kubelet.Pod("default", "a")
	b, _ := n.kubelet.Pod("default", "b")
	s, _ := n.kubelet.Pod("default", "s")

	for _, tc := range []struct{ name, commands, logged string }{
		{"callee sleeping 8 s", "call GET http://s/sleep?8000 2000 64\n", "the k32_http_call of default/a timed out"},
		{"callee looping", "call GET http://s/loop 2000 64\n", "the k32_http_call of default/a timed out"},
		// a calls b, which calls s with a longer timeout: a's ends both.
		{"a chain of in-process calls", "call GET http://b/ 2000 4096\ncall GET http://s/loop 5000 64\n",
			"the k32_http_call of default/b was interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// s's instance has served two requests before the call.
			n.call(t, "default/s", "/")
			if _, body := n.call(t, "default/s", "/"); !strings.HasPrefix(body, "served=") || body == "served=1" {
				t.Fatalf("the sleeper answered %q before the call", body)
			}
			logged, loggedB := len(s.Logs()), len(b.Logs())

			out := relayWithin(t, n, "default/a", tc.commands, time.Minute)
			testpods.Contains(t, out, testpods.CallRC(abi.ErrTimeout))

			// The next request waits for s's fresh instance.
			if status, body := n.call(t, "default/s", "/"); status != 200 || body != "served=1" {
				t.Errorf("after the interrupted call the sleeper answered %d %q, want a fresh instance's served=1", status, body)
			}
			if got := a.Status().RestartCount + b.Status().RestartCount; got != 0 {
				t.Errorf("the callers a and b restarted %d times: their callee's time was charged to them", got)
			}
			if got := s.Status().RestartCount; got != 0 {
				t.Errorf("the callee s counts %d restarts: its caller's timeout was counted as its crash", got)
			}
			var lines []string
			for _, l := range s.Logs()[logged:] {
				lines = append(lines, l.Text)
			}
			testpods.Contains(t, strings.Join(lines, "\n"), "[POD] default/s k32_handle interrupted: "+tc.logged)
			if strings.Contains(tc.commands, "http://b/") { // b was stopped too
				lines = nil
				for _, l := range b.Logs()[loggedB:] {
					lines = append(lines, l.Text)
				}
				testpods.Contains(t, strings.Join(lines, "\n"), "[POD] default/b k32_handle interrupted: the k32_http_call of default/a timed out")
			}
		})
	}
}

// relayWithin is n.relay with a hang guard: it fails t when the relay pod
// has not answered within guard.
func relayWithin(t *testing.T, n *node, target, commands string, guard time.Duration) string {
	t.Helper()
	type answer struct {
		out string
		err error
	}
	done := make(chan answer, 1)
	go func() {
		out, err := n.tryRelay(target, commands)
		done <- answer{out, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			t.Fatal(a.err)
		}
		return a.out
	case <-time.After(guard):
		t.Fatalf("%s did not answer within %s", target, guard)
		return ""
	}
}
