package apptest

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// body reads a body in one of Hurl's forms: JSON, XML, `one line`,
// ```multiline```, hex,…; base64,…; or file,…;. p.i is its first line
// and is left on its last.
func (p *parser) body() (Body, error) {
	start := p.i + 1
	line := strings.TrimSpace(p.lines[p.i])
	switch {
	case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "`"),
		strings.HasPrefix(line, "hex,"), strings.HasPrefix(line, "base64,"), strings.HasPrefix(line, "file,"):
		return p.stringBody(start, line)
	case strings.HasPrefix(line, "<"):
		return p.xmlBody(start)
	}
	// JSON: lines up to the first that completes a valid document, a
	// {{variable}} standing for a value (a number, or inside a string).
	var b strings.Builder
	for ; p.i < len(p.lines); p.i++ {
		b.WriteString(p.lines[p.i])
		b.WriteByte('\n')
		if json.Valid([]byte(variable.ReplaceAllString(b.String(), "0"))) {
			return Body{Line: start, Kind: "json", Text: b.String()}, nil
		}
	}
	return Body{}, p.errorf(start, "the JSON body never ends in a valid JSON document")
}

// stringBody reads the body forms that the tokenizer reads as values.
func (p *parser) stringBody(start int, line string) (Body, error) {
	rest := strings.Join(p.lines[p.i:], "\n")
	rest = rest[strings.Index(rest, line[:1]):] // from the body's first character
	var t token
	var n int
	var err error
	switch {
	case strings.HasPrefix(line, "```"):
		t, n, err = multiline(rest)
	case strings.HasPrefix(line, "`"):
		t.kind = tRaw
		t.text, n, err = unquote(rest, '`')
	default:
		t, n, err = oneline(rest)
	}
	if err != nil {
		return Body{}, p.errorf(start, "%v", err)
	}
	p.i += strings.Count(rest[:n], "\n")
	if after := strings.TrimSpace(strings.SplitN(rest[n:], "\n", 2)[0]); after != "" && !strings.HasPrefix(after, "#") {
		return Body{}, p.errorf(p.i+1, "unexpected %q after the body", after)
	}
	b := Body{Line: start, NoVars: t.noVars, Hint: t.hint}
	switch t.kind {
	case tBytes:
		b.Kind, b.Bytes = "bytes", t.bytes
	case tFile:
		b.Kind, b.File = "file", t.text
	default:
		b.Kind, b.Text = "text", t.text
		if t.hint == "graphql" {
			b.Kind, b.Hint = "graphql", ""
		}
	}
	return b, nil
}

// xmlBody reads lines up to the first that completes an XML document.
func (p *parser) xmlBody(start int) (Body, error) {
	var b strings.Builder
	for ; p.i < len(p.lines); p.i++ {
		b.WriteString(p.lines[p.i])
		b.WriteByte('\n')
		if xmlComplete(b.String()) {
			return Body{Line: start, Kind: "xml", Text: b.String()}, nil
		}
	}
	return Body{}, p.errorf(start, "the XML body never ends in a complete XML document")
}

// xmlComplete says whether s holds a whole XML document: its root element
// is closed.
func xmlComplete(s string) bool {
	d := xml.NewDecoder(strings.NewReader(s))
	d.Strict = false
	depth, rooted := 0, false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return false
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			rooted = true
		case xml.EndElement:
			depth--
			if rooted && depth == 0 {
				return true
			}
		}
	}
}
