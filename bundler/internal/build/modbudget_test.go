package build

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
)

// kube32 build refuses a module over a module budget (docs/boards.md,
// "Module budgets"), here one that clang makes: a switch of more cases
// than abi.BlockDepthMax, which clang turns into a block per case, nested,
// and a br_table to them.
func TestBuildRefusesAModuleOverABudget(t *testing.T) {
	testenv.Tools(t, "clang", "wasm-ld")
	var src strings.Builder
	src.WriteString("#include <stdint.h>\nvolatile int32_t sink[8];\n__attribute__((export_name(\"k32_handle\"))) int32_t k32_handle(void) {\n\tswitch (sink[0]) {\n")
	cases := abi.BlockDepthMax + 16
	for i := range cases {
		fmt.Fprintf(&src, "\tcase %d: sink[%d] = %d; break;\n", i, i%7+1, 3*i+1)
	}
	src.WriteString("\t}\n\treturn 0;\n}\n")
	dir := writePodProject(t, "big", []string{"-O0"}, map[string]string{"main.c": src.String()}, "")
	_, err := Build(context.Background(), dir, Options{})
	if err == nil {
		t.Fatal("Build succeeded")
	}
	for _, w := range []string{
		"checking pod big: the module is over the module budgets a board loads (docs/boards.md)",
		// A plain build keeps the name section, which names the function
		// (its export is a wrapper that wasm-ld adds).
		fmt.Sprintf(`function "k32_handle" nests blocks deeper than the limit of %d (abi.BlockDepthMax)`, abi.BlockDepthMax),
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
}
