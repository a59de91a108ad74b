package apptest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxRetry bounds [Options] retry: a test run ends.
const maxRetry = 100

// requestLine is METHOD URL: Hurl's methods are upper-case words.
var requestLine = regexp.MustCompile(`^([A-Z]+)\s+(\S+)\s*$`)

// fieldLine is a name: value line (a header, a form or query parameter).
var fieldLine = regexp.MustCompile(`^([A-Za-z0-9!#$%&'*+.^_|~-]+)\s*:\s*(.*)$`)

// sectionLine is [Name].
var sectionLine = regexp.MustCompile(`^\[([A-Za-z]+)\]\s*$`)

// statusLine is HTTP 200, HTTP/1.1 200 or HTTP * (any status).
var statusLine = regexp.MustCompile(`^HTTP(/[0-9.]+)?\s+([0-9]{3}|\*)\s*$`)

// Parse reads a test file. Errors name the file and line: path:line: ...
func Parse(path string, src []byte) (*File, error) {
	p := &parser{path: path, lines: strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")}
	f := &File{Path: path}
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
	m := requestLine.FindStringSubmatch(strings.TrimSpace(p.lines[p.i]))
	if statusLine.MatchString(strings.TrimSpace(p.lines[p.i])) {
		return Entry{}, p.errorf(n, "an HTTP line with no request above it")
	}
	if m == nil {
		return Entry{}, p.errorf(n, "want a request line (METHOD URL, e.g. GET {{ingress}}/), got %q", strings.TrimSpace(p.lines[p.i]))
	}
	e := Entry{Line: n, Method: m[1], URL: m[2]}
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
		case sectionLine.MatchString(line):
			name := sectionLine.FindStringSubmatch(line)[1]
			switch name {
			case "QueryStringParams", "Query", "FormParams", "Form", "Options":
				section = name
			default:
				return p.errorf(n, "section [%s] is not supported by kube32 test in a request (docs/testing.md lists [QueryStringParams], [FormParams] and [Options])", name)
			}
		case strings.HasPrefix(line, "```"), strings.HasPrefix(line, "`"), strings.HasPrefix(line, "{"), strings.HasPrefix(line, "["):
			if e.Body != nil {
				return p.errorf(n, "a second body: a request has one")
			}
			body, err := p.body()
			if err != nil {
				return err
			}
			e.Body = &body
		case fieldLine.MatchString(line):
			m := fieldLine.FindStringSubmatch(line)
			fld := Field{Line: n, Name: m[1], Value: strings.TrimSpace(m[2])}
			switch section {
			case "":
				e.Headers = append(e.Headers, fld)
			case "QueryStringParams", "Query":
				e.Query = append(e.Query, fld)
			case "Options":
				if err := option(e, fld); err != nil {
					return p.errorf(n, "%v", err)
				}
			default:
				e.Form = append(e.Form, fld)
			}
		default:
			return p.errorf(n, "want a header (Name: value), a [Section], a body, or the answer's HTTP line, got %q", line)
		}
	}
	return nil
}

// body reads a body: ```multi-line```, `one line`, or JSON; p.i is its
// first line and is left on its last.
func (p *parser) body() (string, error) {
	start := p.i + 1
	line := strings.TrimSpace(p.lines[p.i])
	switch {
	case strings.HasPrefix(line, "```"):
		if rest := strings.TrimPrefix(line, "```"); strings.HasSuffix(rest, "```") && len(rest) >= 3 {
			return strings.TrimSuffix(rest, "```"), nil // ```one line```
		}
		var b strings.Builder
		for p.i++; p.i < len(p.lines); p.i++ {
			if strings.TrimSpace(p.lines[p.i]) == "```" {
				return b.String(), nil
			}
			b.WriteString(p.lines[p.i])
			b.WriteByte('\n')
		}
		return "", p.errorf(start, "the body's ``` is never closed")
	case strings.HasPrefix(line, "`"):
		if len(line) < 2 || !strings.HasSuffix(line, "`") {
			return "", p.errorf(start, "a one-line body ends with ` on the same line")
		}
		return line[1 : len(line)-1], nil
	}
	// JSON: lines up to the first that completes a valid document, a
	// {{variable}} standing for a value (a number, or inside a string).
	var b strings.Builder
	for ; p.i < len(p.lines); p.i++ {
		b.WriteString(p.lines[p.i])
		b.WriteByte('\n')
		if json.Valid([]byte(variable.ReplaceAllString(b.String(), "0"))) {
			return b.String(), nil
		}
	}
	return "", p.errorf(start, "the JSON body never ends in a valid JSON document")
}

// response reads the HTTP line, the header lines under it and the
// [Captures] and [Asserts] sections, up to the next request.
func (p *parser) response(e *Entry) error {
	n := p.i + 1
	line := strings.TrimSpace(p.lines[p.i])
	if m := statusLine.FindStringSubmatch(line); m[2] != "*" {
		code, _ := strconv.Atoi(m[2])
		e.Asserts = append(e.Asserts, Assert{Line: n, Text: line, Query: Query{Kind: "status"}, Pred: Predicate{Op: "==", Value: float64(code)}})
	}
	section := ""
	for p.i++; p.i < len(p.lines); p.i++ {
		raw, n := p.lines[p.i], p.i+1
		line := strings.TrimSpace(raw)
		switch {
		case blank(raw):
			continue
		case requestLine.MatchString(line):
			return nil
		case sectionLine.MatchString(line):
			section = sectionLine.FindStringSubmatch(line)[1]
			if section != "Captures" && section != "Asserts" {
				return p.errorf(n, "section [%s] is not supported by kube32 test in an answer (docs/testing.md lists [Captures] and [Asserts])", section)
			}
		case section == "Asserts":
			a, err := parseAssert(line)
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			a.Line = n
			e.Asserts = append(e.Asserts, a)
		case section == "Captures":
			c, err := parseCapture(line)
			if err != nil {
				return p.errorf(n, "%v", err)
			}
			c.Line = n
			e.Captures = append(e.Captures, c)
		case fieldLine.MatchString(line):
			m := fieldLine.FindStringSubmatch(line)
			e.Asserts = append(e.Asserts, Assert{Line: n, Text: line,
				Query: Query{Kind: "header", Args: []string{m[1]}}, Pred: Predicate{Op: "==", Value: strings.TrimSpace(m[2])}})
		default:
			return p.errorf(n, "want a header (Name: value), [Captures] or [Asserts] under the HTTP line, got %q", line)
		}
	}
	return nil
}

// parseCapture reads name: query [filters].
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
	if len(rest) > 0 {
		return Capture{}, fmt.Errorf("unexpected %q after the capture's query", rest[0].text)
	}
	return Capture{Name: m[1], Query: q}, nil
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
	return Assert{Text: line, Query: q, Pred: pred}, nil
}

// option reads an [Options] line: retry: N, retry-interval: 500 (ms, as
// Hurl) or 500ms.
func option(e *Entry, f Field) error {
	switch f.Name {
	case "retry":
		n, err := strconv.Atoi(f.Value)
		if err != nil || n < 0 || n > maxRetry {
			return fmt.Errorf("retry: %q: want a count from 0 to %d", f.Value, maxRetry)
		}
		e.Retry = n
	case "retry-interval":
		d, err := time.ParseDuration(f.Value)
		if ms, errMs := strconv.Atoi(f.Value); errMs == nil {
			d, err = time.Duration(ms)*time.Millisecond, nil
		}
		if err != nil || d <= 0 || d > time.Minute {
			return fmt.Errorf("retry-interval: %q: want a duration above 0 and at most 1m (500, 500ms, 2s)", f.Value)
		}
		e.RetryInterval = d
	default:
		return fmt.Errorf("option %q is not supported by kube32 test (docs/testing.md lists retry and retry-interval)", f.Name)
	}
	return nil
}
