package apptest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// requestLine is METHOD URL: Hurl's methods are upper-case words.
var requestLine = regexp.MustCompile(`^([A-Z]+)\s+((?:\{\{[^}]*\}\}|[^\s#])+)\s*(#.*)?$`)

// fieldLine is a name: value line (a header, a parameter, an option, a
// capture). A name is Hurl's key-string: letters, digits, _ - . [ ] @ $
// and the characters of a header name, {{variables}} and \escapes.
var fieldLine = regexp.MustCompile(`^((?:[A-Za-z0-9!$%&'*+.^_|~@\[\]-]|\{\{[^}]*\}\}|\\u\{[0-9A-Fa-f]+\}|\\.)+)\s*:(.*)$`)

// emptyHeader is Name; a header sent with an empty value, as curl writes
// it.
var emptyHeader = regexp.MustCompile(`^([A-Za-z0-9!$%&'*+.^_|~-]+);\s*(#.*)?$`)

// sectionLine is [Name].
var sectionLine = regexp.MustCompile(`^\[([A-Za-z]+)\]\s*(#.*)?$`)

// statusLine is HTTP 200, HTTP/1.1 200, HTTP/2 200 or HTTP * (any status).
var statusLine = regexp.MustCompile(`^HTTP(/1\.0|/1\.1|/2|/3)?\s+([0-9]{3}|\*)\s*(#.*)?$`)

// requestSections and answerSections are Hurl's, with their short names.
var requestSections = map[string]string{
	"QueryStringParams": "Query", "Query": "Query", "FormParams": "Form", "Form": "Form",
	"MultipartFormData": "Multipart", "Multipart": "Multipart", "Cookies": "Cookies",
	"BasicAuth": "BasicAuth", "Options": "Options",
}
var answerSections = map[string]bool{"Captures": true, "Asserts": true}

// Parse reads a test file. Errors name the file and line: path:line: ...
func Parse(path string, src []byte) (*File, error) {
	p := &parser{path: path, lines: strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")}
	f := &File{Path: path, Dir: filepath.Dir(filepath.FromSlash(path))}
	for {
		p.skipBlank()
		if p.i == len(p.lines) {
			return f, nil
		}
		e, err := p.entry()
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, e)
	}
}

type parser struct {
	path  string
	lines []string
	i     int // the next line, 0-based
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.path, line, fmt.Sprintf(format, args...))
}

// skipBlank skips blank and comment lines.
func (p *parser) skipBlank() {
	for p.i < len(p.lines) && blank(p.lines[p.i]) {
		p.i++
	}
}

func blank(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || strings.HasPrefix(t, "#")
}

// entry reads one request and its expected answer.
func (p *parser) entry() (Entry, error) {
	n := p.i + 1
	line := strings.TrimSpace(p.lines[p.i])
	if statusLine.MatchString(line) {
		return Entry{}, p.errorf(n, "an HTTP line with no request above it")
	}
	m := requestLine.FindStringSubmatch(line)
	if m == nil {
		return Entry{}, p.errorf(n, "want a request line (METHOD URL, e.g. GET {{ingress}}/), got %q", line)
	}
	url, err := valueString(m[2])
	if err != nil {
		return Entry{}, p.errorf(n, "%v", err)
	}
	e := Entry{Line: n, Method: m[1], URL: url}
	p.i++
	if err := p.request(&e); err != nil {
		return Entry{}, err
	}
	if p.i < len(p.lines) && statusLine.MatchString(strings.TrimSpace(p.lines[p.i])) {
		if err := p.response(&e); err != nil {
			return Entry{}, err
		}
	}
	return e, nil
}

// request reads the request's headers, sections and body, up to the HTTP
// line or the next request.
func (p *parser) request(e *Entry) error {
	section := ""
	for ; p.i < len(p.lines); p.i++ {
		raw, n := p.lines[p.i], p.i+1
		line := strings.TrimSpace(raw)
		switch {
		case blank(raw):
			continue
		case statusLine.MatchString(line), requestLine.MatchString(line):
			return nil
		case sectionLine.MatchString(line) && requestSections[sectionLine.FindStringSubmatch(line)[1]] != "":
			if e.Body != nil {
				return p.errorf(n, "a section after the body: the body ends the request")
			}
			section = requestSections[sectionLine.FindStringSubmatch(line)[1]]
		case sectionLine.MatchString(line):
			name := sectionLine.FindStringSubmatch(line)[1]
			return p.errorf(n, "section [%s] is not one of a request (docs/testing.md lists [QueryStringParams], [FormParams], [MultipartFormData], [Cookies], [BasicAuth] and [Options])", name)
		case startsBody(line):
			if e.Body != nil {
				return p.errorf(n, "a second body: a request has one")
			}
			body, err := p.body()
			if err != nil {
				return err
			}
			e.Body = &body
		case fieldLine.MatchString(line):
			if e.Body != nil {
				return p.errorf(n, "a line after the body: the body ends the request")
			}
			if err := p.requestField(e, section, n, line); err != nil {
				return err
			}
		case section == "" && e.Body == nil && emptyHeader.MatchString(line):
			e.Headers = append(e.Headers, Field{Line: n, Name: emptyHeader.FindStringSubmatch(line)[1]})
		default:
			return p.errorf(n, "want a header (Name: value), a [Section], a body, or the answer's HTTP line, got %q", line)
		}
	}
	return nil
}

// requestField reads a name: value line of the request or of its section.
func (p *parser) requestField(e *Entry, section string, n int, line string) error {
	m := fieldLine.FindStringSubmatch(line)
	name, err := keyString(m[1])
	if err != nil {
		return p.errorf(n, "%v", err)
	}
	rawValue := strings.TrimSpace(m[2])
	if section == "Multipart" && strings.HasPrefix(rawValue, "file,") {
		part, err := filePart(name, rawValue)
		if err != nil {
			return p.errorf(n, "%v", err)
		}
		part.Line = n
		e.Multipart = append(e.Multipart, part)
		return nil
	}
	value, err := valueString(rawValue)
	if err != nil {
		return p.errorf(n, "%v", err)
	}
	fld := Field{Line: n, Name: name, Value: value}
	switch section {
	case "":
		e.Headers = append(e.Headers, fld)
	case "Query":
		e.Query = append(e.Query, fld)
	case "Form":
		e.Form = append(e.Form, fld)
	case "Multipart":
		e.Multipart = append(e.Multipart, Part{Field: fld})
	case "Cookies":
		e.Cookies = append(e.Cookies, fld)
	case "BasicAuth":
		if e.BasicAuth != nil {
			return p.errorf(n, "a second [BasicAuth] line: it takes one, user: password")
		}
		e.BasicAuth = &fld
	case "Options":
		if err := checkOption(fld); err != nil {
			return p.errorf(n, "%v", err)
		}
		e.Options = append(e.Options, fld)
	}
	return nil
}

// filePart reads a multipart file: file,path; or file,path; type.
func filePart(name, value string) (Part, error) {
	t, n, err := oneline(value)
	if err != nil {
		return Part{}, err
	}
	ct := strings.TrimSpace(value[n:])
	if i := strings.Index(ct, "#"); i >= 0 {
		ct = strings.TrimSpace(ct[:i])
	}
	return Part{Field: Field{Name: name}, File: t.text, ContentType: ct}, nil
}

// keyString undoes a name's escapes (\: \# \\ …).
func keyString(s string) (string, error) { return unescapeAll(s) }

// valueString reads a value up to a comment (an unescaped #) and undoes
// its escapes.
func valueString(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '#':
			return strings.TrimSpace(b.String()), nil
		case '\\':
			r, n, err := escape(s[i:])
			if err != nil {
				return "", err
			}
			b.WriteString(r)
			i += n - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return strings.TrimSpace(b.String()), nil
}

// startsBody says whether a line starts a body: JSON, XML, a `string`, a
// ```string```, hex,…; base64,…; or file,…;. A name that is a
// {{variable}} starts a header, and [Name] a section.
func startsBody(line string) bool {
	switch {
	case strings.HasPrefix(line, "{{") && fieldLine.MatchString(line):
		return false
	case sectionLine.MatchString(line):
		return false
	}
	for _, prefix := range []string{"{", "[", "\"", "`", "<", "hex,", "base64,", "file,"} {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// response reads the HTTP line, the header lines under it, the [Captures]
// and [Asserts] sections and the body, up to the next request.
func (p *parser) response(e *Entry) error {
	n := p.i + 1
	line := strings.TrimSpace(p.lines[p.i])
	m := statusLine.FindStringSubmatch(line)
	if m[1] != "" {
		version := strings.TrimPrefix(m[1], "/")
		e.Asserts = append(e.Asserts, Assert{Line: n, Text: line, Query: Query{Kind: "version"}, Pred: Predicate{Op: "==", Value: tmpl(version)}})
	}
	if m[2] != "*" {
		code, _ := strconv.ParseInt(m[2], 10, 64)
		e.Asserts = append(e.Asserts, Assert{Line: n, Text: line, Query: Query{Kind: "status"}, Pred: Predicate{Op: "==", Value: code}})
	}
	section := ""
	var body *Body
	for p.i++; p.i < len(p.lines); p.i++ {
		raw, n := p.lines[p.i], p.i+1
		line := strings.TrimSpace(raw)
		switch {
		case blank(raw):
			continue
		case requestLine.MatchString(line):
			return nil
		case body != nil:
			return p.errorf(n, "a line after the answer's body: the body ends the entry")
		case sectionLine.MatchString(line):
			section = sectionLine.FindStringSubmatch(line)[1]
			if !answerSections[section] {
				return p.errorf(n, "section [%s] is not one of an answer (docs/testing.md lists [Captures] and [Asserts])", section)
			}
		case startsBody(line):
			b, err := p.body()
			if err != nil {
				return err
			}
			body = &b
			e.Asserts = append(e.Asserts, bodyAssert(b))
		case section == "Asserts":
			src, err := p.gather(line)
			if err != nil {
				return err
			}
			a, err := parseAssert(src)
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			a.Line = n
			e.Asserts = append(e.Asserts, a)
		case section == "Captures":
			src, err := p.gather(line)
			if err != nil {
				return err
			}
			c, err := parseCapture(src)
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			c.Line = n
			e.Captures = append(e.Captures, c)
		case fieldLine.MatchString(line):
			m := fieldLine.FindStringSubmatch(line)
			name, err := keyString(m[1])
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			value, err := valueString(m[2])
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			e.Asserts = append(e.Asserts, Assert{Line: n, Text: line, HeaderLine: true,
				Query: Query{Kind: "header", Args: []any{tmpl(name)}}, Pred: Predicate{Op: "==", Value: tmpl(value)}})
		default:
			return p.errorf(n, "want a header (Name: value), [Captures], [Asserts] or a body under the HTTP line, got %q", line)
		}
	}
	return nil
}

// gather returns an assert or a capture line, with the lines of a
// ```multiline``` value it opens.
func (p *parser) gather(line string) (string, error) {
	if strings.Count(line, "```")%2 == 0 {
		return line, nil
	}
	start := p.i + 1
	var b strings.Builder
	b.WriteString(line)
	for p.i++; p.i < len(p.lines); p.i++ {
		b.WriteByte('\n')
		b.WriteString(p.lines[p.i])
		if strings.HasPrefix(strings.TrimSpace(p.lines[p.i]), "```") {
			return b.String(), nil
		}
	}
	return "", p.errorf(start, "the ``` string is never closed")
}

// bodyAssert is the assert of an answer's body: the body equals it (as
// JSON when it is JSON; as bytes when written as bytes or a file).
func bodyAssert(b Body) Assert {
	a := Assert{Line: b.Line, Query: Query{Kind: "body"}, Pred: Predicate{Op: "==", Value: bodyRef(b)}}
	switch b.Kind {
	case "bytes", "file":
		a.Query.Kind = "bytes"
	}
	a.Text = "body == " + clip(firstLine(strings.TrimSpace(b.Text)))
	switch b.Kind {
	case "bytes":
		a.Text = "bytes == " + show(b.Bytes)
	case "file":
		a.Text = "bytes == file," + b.File + ";"
	}
	return a
}

// bodyRef is an answer's body as a predicate's value, read when the
// assert runs.
type bodyRef Body

// parseCapture reads name: query [filters] [redact].
func parseCapture(line string) (Capture, error) {
	m := fieldLine.FindStringSubmatch(line)
	if m == nil {
		return Capture{}, fmt.Errorf("want a capture (name: query), got %q", line)
	}
	toks, err := tokenize(m[2])
	if err != nil {
		return Capture{}, err
	}
	q, rest, err := parseQuery(toks)
	if err != nil {
		return Capture{}, err
	}
	c := Capture{Name: m[1], Query: q}
	if len(rest) > 0 && rest[0].bare("redact") {
		c.Redact, rest = true, rest[1:]
	}
	if len(rest) > 0 {
		return Capture{}, fmt.Errorf("unexpected %q after the capture's query (want a filter: %s)", rest[0].text, known(filters))
	}
	return c, nil
}

// parseAssert reads query [filters] predicate.
func parseAssert(line string) (Assert, error) {
	toks, err := tokenize(line)
	if err != nil {
		return Assert{}, err
	}
	q, rest, err := parseQuery(toks)
	if err != nil {
		return Assert{}, err
	}
	pred, err := parsePredicate(rest)
	if err != nil {
		return Assert{}, err
	}
	return Assert{Text: firstLine(line), Query: q, Pred: pred}, nil
}
