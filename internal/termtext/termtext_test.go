package termtext

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

// Line escapes every control character, invalid byte and text-reordering
// control, keeps text (tabs and non-ASCII letters included), is idempotent
// and never passes abi.LogLineMax nor cuts an escape or a rune in two
// (docs/serve.md, "Hostile clients").
func TestLineEscapesControlsAndKeepsText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, café, 日本, 😀":        "plain text, café, 日本, 😀",
		"tab\tkept":                      "tab\tkept",
		"\x1b[31mred\x1b[0m":             `\x1b[31mred\x1b[0m`,
		"\x1b]52;c;SGVsbG8=\x07":         `\x1b]52;c;SGVsbG8=\a`,
		"a\rb\nc\x00d\x7fe\x01":          `a\rb\nc\x00d\x7fe\x01`,
		"csi\u009b2J nel\u0085":          `csi\u009b2J nel\u0085`,
		"bad\xff\xc3":                    `bad\xff\xc3`,
		"rlo\u202eevil\u2066 ls\u2028ps": `rlo\u202eevil\u2066 ls\u2028ps`,
		`already \x1b escaped, "quoted"`: `already \x1b escaped, "quoted"`,
		"\n[default/other] forged":       `\n[default/other] forged`,
	} {
		got := Line(in)
		if got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
		if again := Line(got); again != got {
			t.Errorf("Line is not idempotent on %q: %q", got, again)
		}
	}

	for _, in := range []string{
		strings.Repeat("é", abi.LogLineMax),            // runes across the cut
		strings.Repeat("\x1b", abi.LogLineMax),         // every byte an escape
		strings.Repeat("a", abi.LogLineMax-2) + "\x1b", // an escape that does not fit
	} {
		got := Line(in)
		if len(got) > abi.LogLineMax || !utf8.ValidString(got) || strings.HasSuffix(got, `\x1`) || strings.HasSuffix(got, `\`) {
			t.Errorf("Line of %d bytes gave %d bytes ending %q", len(in), len(got), got[max(0, len(got)-8):])
		}
	}
}

// Lines keeps a message's newlines and escapes each line by Line's rule.
func TestLinesKeepsNewlinesAndEscapesEachLine(t *testing.T) {
	in := "build failed:\n  main.c:3: \x1b[31merror\x1b[0m\r\n\ttab\x07"
	want := "build failed:\n  main.c:3: \\x1b[31merror\\x1b[0m\\r\n\ttab\\a"
	if got := Lines(in); got != want {
		t.Errorf("Lines(%q) = %q, want %q", in, got, want)
	}
}

// Error makes an error's text one escaped line and still unwraps to it.
func TestErrorEscapesAndUnwraps(t *testing.T) {
	inner := errors.New("registry says: \x1b]0;title\a\r\n[INGRESS] all good")
	err := fmt.Errorf("pull x: %w", Error(inner))
	if want := `pull x: registry says: \x1b]0;title\a\r\n[INGRESS] all good`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, inner) {
		t.Error("the escaped error does not unwrap to the registry's")
	}
	if Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
}
