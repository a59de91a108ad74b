package pod

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

// LogText escapes every control character, invalid byte and text-reordering
// control, keeps text (tabs and non-ASCII letters included), is idempotent
// and never passes abi.LogLineMax nor cuts an escape or a rune in two
// (docs/serve.md, "Hostile clients").
func TestLogTextEscapesControlsAndKeepsText(t *testing.T) {
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
		got := LogText(in)
		if got != want {
			t.Errorf("LogText(%q) = %q, want %q", in, got, want)
		}
		if again := LogText(got); again != got {
			t.Errorf("LogText is not idempotent on %q: %q", got, again)
		}
	}

	for _, in := range []string{
		strings.Repeat("é", abi.LogLineMax),            // runes across the cut
		strings.Repeat("\x1b", abi.LogLineMax),         // every byte an escape
		strings.Repeat("a", abi.LogLineMax-2) + "\x1b", // an escape that does not fit
	} {
		got := LogText(in)
		if len(got) > abi.LogLineMax || !utf8.ValidString(got) || strings.HasSuffix(got, `\x1`) || strings.HasSuffix(got, `\`) {
			t.Errorf("LogText of %d bytes gave %d bytes ending %q", len(in), len(got), got[max(0, len(got)-8):])
		}
	}
}

// A line of a pod's stdout that outgrows abi.LogLineMax before its newline
// is logged in pieces cut between two characters, never inside one.
func TestLongStdoutLinesAreCutBetweenCharacters(t *testing.T) {
	p := New(Config{Namespace: "default", Name: "long"})
	line := "a" + strings.Repeat("é", abi.LogLineMax/2+100)
	p.stdout.Write([]byte(line))
	p.stdout.Write([]byte("\n"))
	var text string
	for _, l := range p.Logs() {
		if !utf8.ValidString(l.Text) || strings.Contains(l.Text, `\x`) {
			t.Errorf("a piece holds a split character: ...%q", l.Text[max(0, len(l.Text)-8):])
		}
		text += l.Text
	}
	if len(p.Logs()) != 2 || text != line {
		t.Errorf("the pieces are %d lines of %d bytes, want 2 of the %d written", len(p.Logs()), len(text), len(line))
	}
}
