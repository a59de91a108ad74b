// Package termtext is the one rule by which text from outside kube32 (what
// a pod logs, a registry's or a host's error, a name a module chose) is made
// safe to print on a terminal and to keep as one line of a log, a status or
// an Event (docs/serve.md, "Hostile clients"). Pod logs, the node's lines,
// pod status and Events, and the CLI's output all call it.
package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

// Line is s made one line that is safe to print:
//
//   - control characters are escaped as Go writes them in a quoted string
//     (`\n`, `\r`, `\x1b`, `\x00`, `\x7f`, `\u009b`), so no escape
//     sequence reaches a terminal and no newline starts a line that looks
//     like another pod's or the node's; the tab is kept, as it only moves
//     the cursor on;
//   - invalid UTF-8 bytes are escaped as `\xff`, and so are the Unicode
//     controls that reorder or break text (bidi overrides and isolates,
//     U+2028 and U+2029); other text, non-ASCII letters included, is kept;
//   - it is at most abi.LogLineMax long, cut before an escape or a rune
//     that would not fit.
//
// The backslash is not escaped, so Line(Line(s)) == Line(s): each place
// that prints outside text may pass it through again.
func Line(s string) string {
	if len(s) > abi.LogLineMax {
		s = s[:abi.LogLineMax] // escapes only lengthen: nothing past it would fit
	}
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if escaped(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	var buf [16]byte
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		out := s[i : i+size]
		if escaped(r, size) {
			out = escape(buf[:0], s[i], r, size)
		}
		if b.Len()+len(out) > abi.LogLineMax {
			break
		}
		b.WriteString(out)
		i += size
	}
	return b.String()
}

// Lines is s with each of its lines made safe by Line and its newlines
// kept: for a message of several lines (a compiler's diagnostics in an
// error) that only a terminal shows, where a line of its own cannot pose as
// another source's.
func Lines(s string) string {
	if !strings.Contains(s, "\n") {
		return Line(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Line(l)
	}
	return strings.Join(lines, "\n")
}

// Error returns err with its text made one safe line by Line, for an error
// that quotes text from outside (a registry's message): it still unwraps
// to err.
func Error(err error) error {
	if err == nil {
		return nil
	}
	return &lineError{err}
}

type lineError struct{ err error }

func (e *lineError) Error() string { return Line(e.err.Error()) }
func (e *lineError) Unwrap() error { return e.err }

// escaped reports whether the rune r, size bytes of UTF-8 (1 for an
// invalid byte), is written as an escape.
func escaped(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true // an invalid byte
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0: // C0, DEL, C1
		return true
	case r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi marks, embeddings, overrides, isolates
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// escape writes the escape of r (or of the invalid byte c) into buf.
func escape(buf []byte, c byte, r rune, size int) string {
	if r == utf8.RuneError && size == 1 {
		return string(append(append(buf, `\x`...), hex2(c)...))
	}
	// strconv quotes a control the way Go source writes it: \n, \x1b, \u0085.
	q := strconv.AppendQuoteRuneToASCII(buf, r)
	return string(q[1 : len(q)-1])
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
