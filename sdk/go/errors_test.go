package k32

import (
	"errors"
	"strings"
	"testing"
)

func TestErrnoError(t *testing.T) {
	if got := ErrPerm.Error(); !strings.HasPrefix(got, "k32: K32_ERR_PERM: ") {
		t.Errorf("ErrPerm.Error() = %q", got)
	}
	if got := Errno(-3).Error(); got != "k32: unknown error -3" {
		t.Errorf("Errno(-3).Error() = %q", got)
	}
	var err error = ErrTimeout
	if !errors.Is(err, ErrTimeout) || ErrTimeout.Name() != "K32_ERR_TIMEOUT" {
		t.Errorf("errors.Is or Name broken for %v", err)
	}
	if errnoOf(0) != nil || errnoOf(7) != nil || errnoOf(int32(ErrInval)) != ErrInval {
		t.Error("errnoOf: non-negative results must be nil, negative ones their Errno")
	}
}

func TestProtectTurnsPanicIntoFalse(t *testing.T) {
	if !protect("test", func() {}) {
		t.Error("protect reported a panic for a normal return")
	}
	if protect("test", func() { panic("boom") }) {
		t.Error("protect did not report a panic")
	}
	for _, v := range []any{"s", errors.New("e"), 7, struct{}{}} {
		if panicText(v) == "" {
			t.Errorf("panicText(%#v) is empty", v)
		}
	}
}
