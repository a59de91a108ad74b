package cli

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler"
)

// On a terminal the fit report is aligned, with readable sizes and the
// verdicts; the two tables keep their own columns.
func TestBuildFitTableOnATerminal(t *testing.T) {
	f := bundler.Fit{Board: "esp32",
		Pods: []bundler.PodFit{{Name: "api", Language: "go", Storage: "sd", ModuleBytes: 3 << 20, InitialMemory: 5 << 19, OverBytes: 5<<19 - 128<<10},
			{Name: "hi", Language: "c", Storage: "firmware", ModuleBytes: 400, InitialMemory: 64 << 10, MemoryLimit: 64 << 10, StackBytes: 8192,
				Capabilities: []string{"CHANNEL_IPC", "SERVICE_CALL"}}},
		Budgets: []bundler.Budget{{Name: bundler.BudgetPodMemory, Used: 5<<19 + 64<<10, Budget: 128 << 10, OverBytes: 5<<19 - 64<<10},
			{Name: bundler.BudgetAppImage, Used: 1536<<10 + 400, Budget: 3968 << 10, FirmwareBase: 1536 << 10}}}
	var b strings.Builder
	printBuildFit(&b, f, true)
	want := "\nfit for board esp32:\n" +
		"POD  LANG  STORAGE   MODULE   INIT-MEM  MAX-MEM  LIMIT     STACK    CAPABILITIES              FIT              \n" +
		"api  go    sd        3.0 MiB  2.5 MiB   -        -         -        -                         over by 2.4 MiB  \n" +
		"hi   c     firmware  400 B    64.0 KiB  -        64.0 KiB  8.0 KiB  CHANNEL_IPC,SERVICE_CALL  ok               \n" +
		"\n" +
		"BUDGET      USED                         OF         FIT              \n" +
		"pod memory  2.6 MiB                      128.0 KiB  over by 2.4 MiB  \n" +
		"app image   1.5 MiB (firmware ~1.5 MiB)  3.9 MiB    ok               \n"
	if b.String() != want {
		t.Errorf("fit table:\n%s\nwant\n%s", b.String(), want)
	}
}

// Issue 19, item 9: an app pinned to two nodes has a pod memory row per
// node, each against one board.
func TestBuildFitTableHasARowPerNode(t *testing.T) {
	f := bundler.Fit{Board: "esp32", Pods: []bundler.PodFit{},
		Budgets: []bundler.Budget{{Name: bundler.BudgetPodMemory, Node: "kube32-control-plane", Used: 128 << 10, Budget: 128 << 10},
			{Name: bundler.BudgetPodMemory, Node: "kube32-worker-1", Used: 192 << 10, Budget: 128 << 10, OverBytes: 64 << 10}}}
	var b strings.Builder
	printBuildFit(&b, f, true)
	for _, row := range []string{
		"pod memory on kube32-control-plane  128.0 KiB  128.0 KiB  ok ",
		"pod memory on kube32-worker-1       192.0 KiB  128.0 KiB  over by 64.0 KiB ",
	} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("fit table lacks %q:\n%s", row, b.String())
		}
	}
}
