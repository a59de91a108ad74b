// Package yamledit adds an entry to a list of a YAML file written by a
// person, keeping the rest of the text byte for byte: comments, blank lines,
// key order, indentation, quoting and flow or block style. kube32 add uses
// it on kube32.yaml (docs/cli.md).
//
// The file is parsed with yaml.v3's Node API only to find where the list is
// and how it is indented; the new entry is then inserted into the text, and
// the result is parsed again and checked to mean the old file plus the
// entry, so an edit that would mean anything else is refused, never written.
package yamledit

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Field is one key and string value of a mapping entry.
type Field struct{ Key, Value string }

// Entry is what Append adds: a string (Scalar) or a mapping (Fields, in the
// order to write them when the list gives none).
type Entry struct {
	Scalar string
	Fields []Field
}

// Append returns src with entry added at the end of the list under the
// top-level key. A missing key (or one with no value) gets a new block list.
func Append(src []byte, key string, entry Entry) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("the file is not a YAML mapping")
	}
	t := newText(src)
	root := doc.Content[0]
	var out []byte
	k, v := lookup(root, key)
	switch {
	case k == nil:
		dash := t.listIndent(root)
		out = t.insertAfter(len(t.lines)-1, key+":"+t.nl+blockEntry(entry, nil, dash, dash+2, t.nl))
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "":
		dash := max(t.listIndent(root), k.Column-1)
		out = t.insertAfter(k.Line-1, blockEntry(entry, nil, dash, dash+2, t.nl))
	case v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle != 0:
		var err error
		if out, err = t.flowAppend(v, entry); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	case v.Kind == yaml.SequenceNode:
		out = t.blockAppend(v, entry)
	default:
		return nil, fmt.Errorf("%s (line %d) is not a list", key, v.Line)
	}
	if err := sameButAppended(src, out, key, entry); err != nil {
		if k == nil {
			return nil, fmt.Errorf("%s: cannot add it at the end of the file without changing the rest (%v): add \"%s:\" yourself", key, err, key)
		}
		return nil, fmt.Errorf("%s (line %d): cannot add to it without changing the rest of the file (%v): write it as a block list (one \"- \" entry a line)", key, k.Line, err)
	}
	return out, nil
}

// lookup finds key in a mapping node: its key and value nodes.
func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// text is the file split in lines, each with its line break.
type text struct {
	src   []byte
	lines [][]byte
	nl    string // the file's line break: "\n" or "\r\n"
}

func newText(src []byte) *text {
	t := &text{src: src, nl: "\n"}
	if bytes.Contains(src, []byte("\r\n")) {
		t.nl = "\r\n"
	}
	t.lines = bytes.SplitAfter(src, []byte("\n"))
	if n := len(t.lines); n > 0 && len(t.lines[n-1]) == 0 {
		t.lines = t.lines[:n-1]
	}
	return t
}

// insertAfter returns the text with s inserted after line i (0-based; -1 is
// the start).
func (t *text) insertAfter(i int, s string) []byte {
	var b bytes.Buffer
	for j := 0; j <= i && j < len(t.lines); j++ {
		b.Write(t.lines[j])
	}
	if b.Len() > 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteString(t.nl)
	}
	b.WriteString(s)
	for j := i + 1; j < len(t.lines); j++ {
		b.Write(t.lines[j])
	}
	return b.Bytes()
}

// offset is the byte offset of a node's 1-based line and column (in
// characters).
func (t *text) offset(line, column int) int {
	off := 0
	for j := 0; j < line-1 && j < len(t.lines); j++ {
		off += len(t.lines[j])
	}
	l := t.lines[line-1]
	for c := 1; c < column && len(l) > 0; c++ {
		_, size := utf8.DecodeRune(l)
		l = l[size:]
		off += size
	}
	return off
}

// indent is the number of leading spaces of a line.
func indent(l []byte) int { return len(l) - len(bytes.TrimLeft(l, " ")) }

// blank reports whether a line holds nothing or only a comment.
func blank(l []byte) bool {
	s := bytes.TrimSpace(l)
	return len(s) == 0 || s[0] == '#'
}

// listIndent is the column of the "-" of the file's first top-level block
// list, so that a new list looks like the others; 2 when there is none.
func (t *text) listIndent(root *yaml.Node) int {
	for i := 1; i < len(root.Content); i += 2 {
		if v := root.Content[i]; v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 {
			return v.Column - 1
		}
	}
	return 2
}

// blockAppend inserts entry after the last entry of the block list seq,
// with the same indentation and its key order.
func (t *text) blockAppend(seq *yaml.Node, entry Entry) []byte {
	dash := seq.Column - 1 // a block list's position is its first "-"
	last := seq.Content[len(seq.Content)-1]
	content := dash + 2
	if l := t.lines[last.Line-1]; len(l) > dash && l[dash] == '-' && last.Column-1 > dash {
		content = last.Column - 1
	}
	// The last entry runs to the last line indented past the "-" before a
	// line that is not (the next key): comments deeper than the "-" are
	// the entry's, others may head what follows.
	end := last.Line - 1
	for j := end + 1; j < len(t.lines); j++ {
		l := bytes.TrimRight(t.lines[j], "\r\n")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if indent(l) > dash {
			end = j
			continue
		}
		if !blank(l) {
			break
		}
	}
	return t.insertAfter(end, blockEntry(entry, last, dash, content, t.nl))
}

// blockEntry writes entry as a block list entry: "- " at column dash, its
// keys at column content, in the key order of like (when a mapping).
func blockEntry(entry Entry, like *yaml.Node, dash, content int, nl string) string {
	first := strings.Repeat(" ", dash) + "-" + strings.Repeat(" ", max(content-dash-1, 1))
	if entry.Fields == nil {
		return first + scalar(entry.Scalar) + nl
	}
	var b strings.Builder
	for i, f := range ordered(entry.Fields, like) {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(strings.Repeat(" ", content))
		}
		b.WriteString(scalar(f.Key) + ": " + scalar(f.Value) + nl)
	}
	return b.String()
}

// flowAppend inserts entry before the "]" that closes the flow list seq.
func (t *text) flowAppend(seq *yaml.Node, entry Entry) ([]byte, error) {
	start := t.offset(seq.Line, seq.Column)
	end, err := closing(t.src, start)
	if err != nil {
		return nil, err
	}
	var item string
	if entry.Fields == nil {
		item = scalar(entry.Scalar)
	} else {
		var like *yaml.Node
		if len(seq.Content) > 0 {
			like = seq.Content[len(seq.Content)-1]
		}
		parts := make([]string, 0, len(entry.Fields))
		for _, f := range ordered(entry.Fields, like) {
			parts = append(parts, scalar(f.Key)+": "+scalar(f.Value))
		}
		item = "{" + strings.Join(parts, ", ") + "}"
	}
	// After the last entry's text (or its trailing comma), not before a
	// "]" that may stand on a line of its own.
	at := end
	for at > start+1 && strings.ContainsRune(" \t\r\n", rune(t.src[at-1])) {
		at--
	}
	switch {
	case len(seq.Content) == 0:
	case t.src[at-1] == ',':
		item = " " + item
	default:
		item = ", " + item
	}
	out := append([]byte{}, t.src[:at]...)
	out = append(out, item...)
	return append(out, t.src[at:]...), nil
}

// closing finds the "]" that closes the "[" at src[start], skipping quoted
// text, comments and nested flow collections.
func closing(src []byte, start int) (int, error) {
	if start >= len(src) || src[start] != '[' {
		return 0, fmt.Errorf("no \"[\" where the list starts")
	}
	depth := 0
	for i := start; i < len(src); i++ {
		switch c := src[i]; c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		case '\'', '"':
			for i++; i < len(src) && src[i] != c; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
		case '#':
			if i > 0 && strings.ContainsRune(" \t\n", rune(src[i-1])) {
				for i < len(src) && src[i] != '\n' {
					i++
				}
			}
		}
	}
	return 0, fmt.Errorf("no \"]\" closes the list")
}

// ordered sorts fields in the key order of the mapping like; keys it lacks
// keep their order, after.
func ordered(fields []Field, like *yaml.Node) []Field {
	if like == nil || like.Kind != yaml.MappingNode {
		return fields
	}
	rank := map[string]int{}
	for i := 0; i < len(like.Content); i += 2 {
		rank[like.Content[i].Value] = i/2 + 1
	}
	out := make([]Field, 0, len(fields))
	for r := 1; r <= len(like.Content)/2; r++ {
		for _, f := range fields {
			if rank[f.Key] == r {
				out = append(out, f)
			}
		}
	}
	for _, f := range fields {
		if rank[f.Key] == 0 {
			out = append(out, f)
		}
	}
	return out
}

// scalar writes s as yaml.v3 writes a string: plain when it reads back as
// the same string, quoted otherwise ("123", "yes", "a: b").
func scalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// sameButAppended checks that after means what before means with entry
// added at the end of the list under key, and nothing else.
func sameButAppended(before, after []byte, key string, entry Entry) error {
	var want, got map[string]any
	if err := yaml.Unmarshal(before, &want); err != nil {
		return err
	}
	if err := yaml.Unmarshal(after, &got); err != nil {
		return err
	}
	var value any = entry.Scalar
	if entry.Fields != nil {
		m := map[string]any{}
		for _, f := range entry.Fields {
			m[f.Key] = f.Value
		}
		value = m
	}
	list, _ := want[key].([]any)
	want[key] = append(list, value)
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("the edit would change other values")
	}
	return nil
}
