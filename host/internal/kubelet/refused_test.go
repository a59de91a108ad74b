package kubelet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// count is how many of the node's lines contain s.
func (l *nodeLog) count(s string) int {
	n := 0
	for _, line := range l.All() {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// A refused k32_http_call names its cause in the node's log with a [CALL]
// line, at most one per abi.LogRateInterval for each pod: a container
// without SERVICE_CALL, and a Service that selects no ready pod.
func TestRefusedCallsAreLogged(t *testing.T) {
	log := &nodeLog{}
	n := startLoggingNode(t, imageTree(map[string][]byte{"relay": testpods.Fixture(t, "relay", 65536)}), log.add)
	nocap := relayPod("default", "nocap")
	nocap.Spec.Containers[0].SecurityContext = nil
	pods := []*corev1.Pod{relayPod("default", "a"), relayPod("default", "b"), nocap}
	for _, p := range pods {
		n.store.Apply(p)
	}
	n.store.Apply(relayService("default", "a", "a"))
	n.store.Apply(relayService("default", "b", "b"))
	n.store.Apply(relayService("default", "idle", "nobody"))
	for _, p := range pods {
		testenv.Eventually(t, "pod "+p.Name+" ready", func() bool {
			o, ok := n.store.Get(store.KeyOf(p))
			return ok && podReady(o.(*corev1.Pod))
		})
	}

	noCapLine := "[default/nocap] " + fmt.Sprintf(abi.LogCallNoCapability, "default/nocap", "k32_http_call", "SERVICE_CALL")
	const calls = 20
	start := time.Now()
	for range calls {
		testpods.Contains(t, n.relay(t, "default/nocap", "call GET http://b/ 0 4096\n"), testpods.CallRC(abi.ErrPerm))
	}
	elapsed := time.Since(start)
	testenv.Eventually(t, "the [CALL] line of the missing capability", func() bool { return log.count(noCapLine) > 0 })
	if got, most := log.count(noCapLine), 1+int(elapsed/abi.LogRateInterval); got > most {
		t.Errorf("%d calls in %v logged %d [CALL] lines, want at most %d:\n%s", calls, elapsed, got, most, log)
	}

	// Another pod's limit is its own: its line is not held back by the
	// line just written for nocap.
	testpods.Contains(t, n.relay(t, "default/a", "call GET http://idle/ 0 4096\n"), testpods.CallRC(abi.ErrNoEnt))
	noReadyLine := "[default/a] " + fmt.Sprintf(abi.LogCallNoReadyPod, "default/a", "idle.default")
	testenv.Eventually(t, "the [CALL] line of the Service with no ready pod", func() bool { return log.count(noReadyLine) > 0 })

	// A call that goes through logs no [CALL] line.
	testpods.Contains(t, n.relay(t, "default/b", "call GET http://a/ 0 4096\n"), "call rc=200 ")
	if got := log.count("[default/b] [CALL]"); got != 0 {
		t.Errorf("a successful call logged [CALL]:\n%s", log)
	}
}
