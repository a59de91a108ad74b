package cli

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/bundler"
)

// On a terminal the fit report is aligned, with readable sizes and the
// verdicts; the two tables keep their own columns. Issue 30, item 10:
// piped, it is tab-separated with the sizes written as its problems write
// them (KiB, MiB), not in bytes; -o json has the bytes.
func TestBuildFitTable(t *testing.T) {
	for _, c := range []struct {
		name  string
		human bool
		want  string
	}{
		{"terminal", true, "\nfit for board esp32:\n" +
			"POD  LANG  STORAGE   MODULE   INIT-MEM  MAX-MEM  LIMIT     STACK    CAPABILITIES              PODS  FIT              \n" +
			"api  go    sd        3.0 MiB  2.5 MiB   -        -         -        -                         1     over by 2.4 MiB  \n" +
			"hi   c     firmware  400 B    64.0 KiB  -        64.0 KiB  8.0 KiB  CHANNEL_IPC,SERVICE_CALL  2     ok               \n" +
			"\n" +
			"BUDGET      USED                         OF                 FIT                        PODS                                                            \n" +
			"pod memory  8.1 MiB, 3 Pods              128.0 KiB, 2 Pods  over by 8.0 MiB and 1 Pod  default/api 8.0 MiB, default/hi 64.0 KiB, default/hi2 64.0 KiB  \n" +
			"app image   1.5 MiB (firmware ~1.5 MiB)  3.9 MiB            ok                         -                                                               \n"},
		{"piped", false, "\nfit for board esp32:\n" +
			"POD\tLANG\tSTORAGE\tMODULE\tINIT-MEM\tMAX-MEM\tLIMIT\tSTACK\tCAPABILITIES\tPODS\tFIT\n" +
			"api\tgo\tsd\t3.0 MiB\t2.5 MiB\t-\t-\t-\t-\t1\tover by 2.4 MiB\n" +
			"hi\tc\tfirmware\t400 B\t64.0 KiB\t-\t64.0 KiB\t8.0 KiB\tCHANNEL_IPC,SERVICE_CALL\t2\tok\n" +
			"\n" +
			"BUDGET\tUSED\tOF\tFIT\tPODS\n" +
			"pod memory\t8.1 MiB, 3 Pods\t128.0 KiB, 2 Pods\tover by 8.0 MiB and 1 Pod\tdefault/api 8.0 MiB, default/hi 64.0 KiB, default/hi2 64.0 KiB\n" +
			"app image\t1.5 MiB (firmware ~1.5 MiB)\t3.9 MiB\tok\t-\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			printBuildFit(&b, goAndCFit, c.human)
			if b.String() != c.want {
				t.Errorf("fit table:\n%s\nwant\n%s", b.String(), c.want)
			}
		})
	}
}

// goAndCFit is the fit of a Go pod run by one Pod without a limit and a C
// pod run by two, on esp32.
var goAndCFit = bundler.Fit{Board: "esp32",
	Pods: []bundler.PodFit{{Name: "api", Language: "go", Storage: "sd", ModuleBytes: 3 << 20, InitialMemory: 5 << 19, OverBytes: 5<<19 - 128<<10,
		RunBy: []string{"default/api"}},
		{Name: "hi", Language: "c", Storage: "firmware", ModuleBytes: 400, InitialMemory: 64 << 10, MemoryLimit: 64 << 10, StackBytes: 8192,
			Capabilities: []string{"CHANNEL_IPC", "SERVICE_CALL"}, RunBy: []string{"default/hi", "default/hi2"}}},
	Budgets: []bundler.Budget{{Name: bundler.BudgetPodMemory, Used: 8<<20 + 128<<10, Budget: 128 << 10, OverBytes: 8 << 20,
		Pods: []string{"default/api 8.0 MiB", "default/hi 64.0 KiB", "default/hi2 64.0 KiB"}, MaxPods: 2, OverPods: 1},
		{Name: bundler.BudgetAppImage, Used: 1536<<10 + 400, Budget: 3968 << 10, FirmwareBase: 1536 << 10}}}

// Issue 19, item 9: an app pinned to two nodes has a pod memory row per
// node, each against one board, with the Pods it holds.
func TestBuildFitTableHasARowPerNode(t *testing.T) {
	f := bundler.Fit{Board: "esp32", Pods: []bundler.PodFit{},
		Budgets: []bundler.Budget{{Name: bundler.BudgetPodMemory, Node: "kube32-control-plane", Used: 128 << 10, Budget: 128 << 10, MaxPods: 2,
			Pods: []string{"default/a 64.0 KiB", "default/b 64.0 KiB"}},
			{Name: bundler.BudgetPodMemory, Node: "kube32-worker-1", Used: 192 << 10, Budget: 128 << 10, OverBytes: 64 << 10, MaxPods: 2, OverPods: 1,
				Pods: []string{"default/c 64.0 KiB", "default/d 64.0 KiB", "default/e 64.0 KiB"}}}}
	var b strings.Builder
	printBuildFit(&b, f, true)
	for _, row := range []string{
		"pod memory on kube32-control-plane  128.0 KiB, 2 Pods  128.0 KiB, 2 Pods  ok                          default/a 64.0 KiB, default/b 64.0 KiB ",
		"pod memory on kube32-worker-1       192.0 KiB, 3 Pods  128.0 KiB, 2 Pods  over by 64.0 KiB and 1 Pod  default/c 64.0 KiB, default/d 64.0 KiB, default/e 64.0 KiB ",
	} {
		if !strings.Contains(b.String(), row) {
			t.Errorf("fit table lacks %q:\n%s", row, b.String())
		}
	}
}
