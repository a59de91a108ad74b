package kubelet

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// relayPod is a relay test pod named name in namespace, labelled
// app=<name>, with the SERVICE_CALL capability and WHO=<name>.
func relayPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{NodeName: nodeName, RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "main", Image: "wasm://embedded/relay",
				Env:             []corev1.EnvVar{{Name: "WHO", Value: name}},
				SecurityContext: &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SERVICE_CALL"}}}}}},
	}
}

// relayService selects the relay pod app on ports 80 and 81.
func relayService(namespace, name, app string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": app}, Ports: []corev1.ServicePort{
			{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)},
			{Name: "alt", Port: 81, TargetPort: intstr.FromInt32(8081)},
		}},
	}
}

// callsNode runs relay pods a, b, c (default) and o (namespace other),
// each behind a Service of its name, and the Service "idle" that selects
// no pod.
func callsNode(t *testing.T) *node {
	t.Helper()
	n := startNode(t, imageTree(map[string][]byte{"relay": testpods.Fixture(t, "relay", 65536)}))
	for _, p := range []*corev1.Pod{relayPod("default", "a"), relayPod("default", "b"), relayPod("default", "c"), relayPod("other", "o")} {
		n.store.Apply(p)
		n.store.Apply(relayService(p.Namespace, p.Name, p.Name))
	}
	n.store.Apply(relayService("default", "idle", "nobody"))
	for _, key := range []string{"default/a", "default/b", "default/c", "other/o"} {
		namespace, name, _ := strings.Cut(key, "/")
		testenv.Eventually(t, "pod "+key+" ready", func() bool {
			o, ok := n.store.Get(store.Key{Kind: "Pod", Namespace: namespace, Name: name})
			return ok && podReady(o.(*corev1.Pod))
		})
	}
	return n
}

// relay posts commands to pod target ("namespace/name") through the pod
// server, with extra request headers, and returns the answer's body.
func (n *node) relay(t *testing.T, target, commands string, header ...string) string {
	t.Helper()
	out, err := n.tryRelay(target, commands, header...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tryRelay is relay for goroutines other than the test's.
func (n *node) tryRelay(target, commands string, header ...string) (string, error) {
	return testpods.Relay(n.podURL, target, commands, header...)
}

func TestCallsOnOneNode(t *testing.T) {
	n := callsNode(t)

	t.Run("every URL form reaches the Service's pod", func(t *testing.T) {
		for url, who := range map[string]string{
			"http://b/":                          "b",
			"http://b:80/x?y=1":                  "b",
			"http://b:81/":                       "b",
			"http://b.default/":                  "b",
			"http://b.default.svc/":              "b",
			"http://b.default.svc.cluster.local": "b",
			"http://o.other/":                    "o",
			"http://o.other.svc:81/p":            "o",
		} {
			out := n.relay(t, "default/a", "call GET "+url+" 0 4096\n")
			testpods.Contains(t, out, "call rc=200 status=200", "x-relay="+who+"\n", "who="+who+"\n")
		}
		testpods.Contains(t, n.relay(t, "default/a", "call GET http://b:80/x?y=1 0 4096\n"), "path=/x\n")
	})

	t.Run("only the four caller headers reach the target, with the chain", func(t *testing.T) {
		out := n.relay(t, "default/a", "call POST http://b/ 0 4096\nspin 0\n")
		_, callee, _ := strings.Cut(out, "call rc=")
		testpods.Contains(t, callee, "chain=default/a\n", "Cookie: c=1", "X-Request-Id: r1", "Content-Type: text/plain")
		testpods.Lacks(t, callee, "Authorization", "X-Secret", "forged/pod", "User-Agent")
	})

	t.Run("NOENT", func(t *testing.T) {
		for _, url := range []string{"http://nosuch/", "http://b:82/", "http://idle/", "http://b.nosuchns.svc/"} {
			testpods.Contains(t, n.relay(t, "default/a", "call GET "+url+" 0 4096\n"), testpods.CallRC(abi.ErrNoEnt))
		}
	})

	t.Run("LOOP when the target is already in the chain", func(t *testing.T) {
		out := n.relay(t, "default/a", "call GET http://b/ 0 4096\ncall GET http://c/ 0 4096\ncall GET http://a/ 0 4096\n")
		testpods.Contains(t, out, "who=c\nchain=default/a,default/b\n", testpods.CallRC(abi.ErrLoop))
		// A pod calling its own Service is a loop too.
		testpods.Contains(t, n.relay(t, "default/a", "call GET http://a/ 0 4096\n"), testpods.CallRC(abi.ErrLoop))
	})

	t.Run("LOOP when the chain has reached 8", func(t *testing.T) {
		seven := "x/p1,x/p2,x/p3,x/p4,x/p5,x/p6"
		out := n.relay(t, "default/a", "call GET http://b/ 0 4096\n", "X-Kube32-Call-Chain", seven)
		testpods.Contains(t, out, "call rc=200 ", "chain="+seven+",default/a\n")
		out = n.relay(t, "default/a", "call GET http://b/ 0 4096\n", "X-Kube32-Call-Chain", seven+",x/p7")
		testpods.Contains(t, out, testpods.CallRC(abi.ErrLoop))
	})

	t.Run("TOOBIG copies resp_cap bytes and keeps the status", func(t *testing.T) {
		out := n.relay(t, "default/a", "call GET http://b/ 0 10\n")
		testpods.Contains(t, out, testpods.CallRC(abi.ErrTooBig)+"status=200 len=10 x-relay=b\nwho=b\nchai")
	})

	t.Run("TIMEOUT when the target answers too late", func(t *testing.T) {
		testpods.Contains(t, n.relay(t, "default/a", "call GET http://b/ 100 4096\nspin 400\n"), testpods.CallRC(abi.ErrTimeout))
	})
}

// TestCrossingCallsDoNotDeadlock sends a request to a that calls b while
// another to b calls a: each pod holds its callback lock while it waits
// for the other's. The waits are bounded by the calls' deadlines, so both
// requests end, with an answer or K32_ERR_TIMEOUT.
func TestCrossingCallsDoNotDeadlock(t *testing.T) {
	n := callsNode(t)
	for range 3 {
		testpods.CrossingCalls(t, "a", "b", func(from, commands string) (string, error) {
			return n.tryRelay("default/"+from, commands)
		})
	}
}

// "The calling pod's thread blocks until the call returns. Stopping the pod
// interrupts the call": a pod waiting on a host that never answers is
// stopped, and its connection to the host is closed long before the call's
// 60 s timeout.
func TestStoppingThePodInterruptsTheCall(t *testing.T) {
	n := callsNode(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	accepted, closed := make(chan struct{}), make(chan struct{})
	go func() {
		conn, err := silent.Accept()
		if err != nil {
			return
		}
		close(accepted)
		io.Copy(io.Discard, conn) // returns when the caller closes the connection
		close(closed)
	}()
	type answer struct {
		out string
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		out, err := n.tryRelay("default/a", "call GET http://"+silent.Addr().String()+"/ 60000 64\n")
		answered <- answer{out, err}
	}()
	select {
	case <-accepted:
	case a := <-answered:
		t.Fatalf("the call returned before reaching the host: %q %v", a.out, a.err)
	}
	n.store.Delete(store.Key{Kind: "Pod", Namespace: "default", Name: "a"})
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("stopping the pod left its call to the host open")
	}
	// The guest sees K32_ERR_INTR, or its instance is gone before it answers.
	if a := <-answered; a.err == nil && !strings.Contains(a.out, testpods.CallRC(abi.ErrIntr)) {
		t.Errorf("the interrupted call did not return K32_ERR_INTR: %q", a.out)
	}
}
