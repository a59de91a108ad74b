package pod

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

// LogText is text a pod chose (k32_log, a line of its stdout or stderr,
// a name in a trap's stack trace) made safe to print on a terminal and to
// keep as one line of its log (docs/serve.md, "Hostile clients"):
//
//   - control characters are escaped as Go writes them in a quoted string
//     (`\n`, `\r`, `\x1b`, `\x00`, `\x7f`, `\u009b`), so no escape
//     sequence reaches a terminal and no newline starts a line that looks
//     like another pod's; the tab is kept, as it only moves the cursor on;
//   - invalid UTF-8 bytes are escaped as `\xff`, and so are the Unicode
//     controls that reorder or break text (bidi overrides and isolates,
//     U+2028 and U+2029); other text, non-ASCII letters included, is kept;
//   - it is at most abi.LogLineMax long, cut before an escape or a rune
//     that would not fit.
//
// The backslash is not escaped, so LogText(LogText(s)) == LogText(s): each
// place that prints pod text may pass it through again.
func LogText(s string) string {
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
