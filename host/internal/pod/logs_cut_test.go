package pod

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

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
