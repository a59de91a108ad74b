package gen

import (
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
)

func TestPointerWithoutCTypeFailsRendering(t *testing.T) {
	f := abi.Function{Name: "k32_new", Params: []abi.Param{{Name: "buf", Type: abi.Ptr}}, Results: []abi.Type{abi.I32}}
	_, err := cDecl(f)
	if err == nil || !strings.Contains(err.Error(), "k32_new.buf") || !strings.Contains(err.Error(), "cPointerTypes") {
		t.Errorf("cDecl of an unknown pointer parameter: err %v, want one naming k32_new.buf and cPointerTypes", err)
	}
}

func TestStaleCPointerTypeFailsRendering(t *testing.T) {
	cPointerTypes["k32_gone.buf"] = "char*"
	defer delete(cPointerTypes, "k32_gone.buf")
	if _, err := CHeader(); err == nil || !strings.Contains(err.Error(), "k32_gone.buf") {
		t.Errorf("CHeader with a stale cPointerTypes entry: err %v, want one naming k32_gone.buf", err)
	}
}

func TestCDeclKeepsShortPrototypesOnOneLine(t *testing.T) {
	f, _ := abi.Lookup("k32_resp_asset")
	got, err := cDecl(f)
	if want := "int32_t k32_resp_asset(const char* path, uint32_t path_len, uint32_t status)"; err != nil || got != want {
		t.Errorf("cDecl(k32_resp_asset) = %q, %v; want %q (a prototype that fits in 80 columns stays on one line)", got, err, want)
	}
}

func TestCCommentCannotEndOrNestComments(t *testing.T) {
	got := cComment("", "a */ b /* c")
	if strings.Count(got, "*/") != 1 || strings.Count(got, "/*") != 1 {
		t.Errorf("cComment = %q: a doc must not close or open a C comment", got)
	}
}

func TestWrapRespectsWidth(t *testing.T) {
	for _, line := range wrap(strings.Repeat("word ", 40), 20) {
		if len(line) > 20 {
			t.Errorf("line %q longer than 20", line)
		}
	}
}
