package cluster

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/apis/manifest"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

// withLimit sets a pod's memory limit.
func withLimit(o manifest.Object, limit string) manifest.Object {
	p := o.Obj.(*corev1.Pod)
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}
	return o
}

// chain runs relay pods r1 … r6 behind Services of the same names, all on
// the control plane, and has r1 call r2, r2 call r3 and so on: five
// in-process calls in a row. It returns r1's answer.
func chain(t *testing.T, board *abi.Board) string {
	t.Helper()
	var objs []manifest.Object
	var names []string
	var commands strings.Builder
	for i := 1; i <= 6; i++ {
		name := fmt.Sprintf("r%d", i)
		names = append(names, name)
		objs = append(objs, withLimit(relay(name, name, ControlPlaneName), "256Ki"), svc(name))
		if i > 1 {
			fmt.Fprintf(&commands, "call POST http://%s 5000 4096\n", name)
		}
	}
	c := startReady(t, Options{Images: os.DirFS(fixtureImages(t, "relay")), Objects: objs, Board: board,
		HandlerTimeout: 5 * time.Second}, names...)
	return relayVia(t, c.PodURL(), "r1", commands.String())
}

// TestInProcessChainRunsOutOfBoardStack: on esp32-psram a callback entered
// from outside can make abi.Board.InProcessCalls (4) in-process calls in a
// row; the fifth, r5 calling r6, fails with K32_ERR_NOMEM. Without a board
// (the simulator's stack) the same chain reaches r6.
func TestInProcessChainRunsOutOfBoardStack(t *testing.T) {
	board, err := abi.LookupBoard("esp32-psram")
	if err != nil {
		t.Fatal(err)
	}
	if n := board.InProcessCalls(); n != 4 {
		t.Fatalf("esp32-psram: %d in-process calls in a row, want the 4 this test is written for", n)
	}
	t.Run("board", func(t *testing.T) {
		out := chain(t, &board)
		testpods.Contains(t, out, "who=r5\n", "chain=default/r1,default/r2,default/r3,default/r4\n", testpods.CallRC(abi.ErrNoMem))
		testpods.Lacks(t, out, "who=r6\n")
		if n := strings.Count(out, "call rc=200 "); n != 4 {
			t.Errorf("%d calls answered 200, want 4 (r1 … r4):\n%s", n, out)
		}
	})
	t.Run("simulator", func(t *testing.T) {
		out := chain(t, nil)
		testpods.Contains(t, out, "who=r6\n", "chain=default/r1,default/r2,default/r3,default/r4,default/r5\n")
		testpods.Lacks(t, out, testpods.CallRC(abi.ErrNoMem))
	})
}
