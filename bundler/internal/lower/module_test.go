package lower

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/abi/modcheck"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

const witPod = "../../../internal/testkit/testpods/c/witnames.c"

func witModule(t testing.TB, extra ...string) []byte {
	return testpods.C(t, witPod, 64<<10, extra...)
}

// Rule (docs/components.md, "What is lowered and what is refused"): WIT
// names are lowered to the board's, and only the import and export
// sections change.
func TestWITNamesAreLoweredToBoardNames(t *testing.T) {
	in := witModule(t)
	out, err := Pod(in)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := modcheck.Check(context.Background(), out, modcheck.Options{})
	if err != nil {
		t.Fatalf("the module check refuses the lowered module: %v", err)
	}
	wantImports := []string{"k32.k32_env_get", "k32.k32_req_path", "k32.k32_resp_header", "k32.k32_resp_status", "k32.k32_resp_write"}
	imports := slices.Sorted(slices.Values(rep.Imports))
	if !slices.Equal(imports, wantImports) {
		t.Errorf("imports %q, want %q", imports, wantImports)
	}
	for _, e := range []string{"k32_handle", "k32_init", "memory"} {
		if !slices.Contains(rep.Exports, e) {
			t.Errorf("exports %q lack %s", rep.Exports, e)
		}
	}
	for _, e := range rep.Exports {
		if strings.Contains(e, "-") {
			t.Errorf("export %s kept its WIT name", e)
		}
	}

	inSecs, err := sections(in)
	if err != nil {
		t.Fatal(err)
	}
	outSecs, err := sections(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(inSecs) != len(outSecs) {
		t.Fatalf("%d sections in, %d out", len(inSecs), len(outSecs))
	}
	if !bytes.Equal(in[:8], out[:8]) {
		t.Errorf("preamble changed")
	}
	for i := range inSecs {
		changed := !bytes.Equal(inSecs[i].raw, outSecs[i].raw)
		renames := inSecs[i].id == sectionImport || inSecs[i].id == sectionExport
		if changed != renames {
			t.Errorf("section %d (id %d): changed %v, want %v", i, inSecs[i].id, changed, renames)
		}
	}

	// Lowering a lowered module (or any module in board names) changes
	// nothing.
	again, err := Pod(out)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("lowering the lowered module again: changed %v, err %v", !bytes.Equal(again, out), err)
	}
}

// Rule: a version of kube32:app the ABI does not have is refused naming
// both versions, an unknown function naming it, and an export that would
// be there twice naming both.
func TestWITNamesTheABIDoesNotHaveAreRefused(t *testing.T) {
	cases := []struct {
		name  string
		flags []string
		want  []string
	}{
		{"other version", []string{`-DWIT_MODULE="kube32:app/k32@0.2.0"`},
			[]string{"kube32:app/k32@0.2.0", "version 0.2.0", "ABI is version " + abi.Version}},
		{"no version", []string{`-DWIT_MODULE="kube32:app/k32"`},
			[]string{"kube32:app/k32 without a version", abi.Version}},
		{"unknown interface", []string{`-DWIT_MODULE="kube32:app/files@0.1.0"`},
			[]string{"kube32:app/files@0.1.0", "no such interface"}},
		{"unknown function", []string{"-DWIT_UNKNOWN"},
			[]string{"k32-teleport", "kube32:app/k32@0.1.0"}},
		{"one export twice", []string{"-DWIT_TWICE"},
			[]string{`"k32_handle" and "k32-handle"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pod(witModule(t, tc.flags...))
			if err == nil {
				t.Fatal("lowered, want refused")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
