package apptest

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// tokKind is the kind of a word of an assert or capture line.
type tokKind int

const (
	tWord     tokKind = iota // a bare word: a query, filter or predicate, a number, true, false, null
	tString                  // "a string", escapes undone; its {{variables}} expand
	tRaw                     // `one line` or a ```multiline``` string; its {{variables}} expand unless novariable
	tRegex                   // /a regex/
	tBytes                   // hex,…; or base64,…;
	tFile                    // file,path;
	tTemplate                // {{name}} alone: the variable's own value, typed
)

// token is one word of an assert or capture line.
type token struct {
	kind   tokKind
	text   string
	bytes  []byte // of tBytes
	noVars bool   // a ```novariable or ```raw string
	hint   string // a ```string's type: json, xml, graphql
}

func (t token) bare(word string) bool { return t.kind == tWord && t.text == word }

// tokenize splits an assert or capture (which may go on over the lines of
// a ```multiline``` value) into tokens; an unquoted # starts a comment.
func tokenize(line string) ([]token, error) {
	var toks []token
	for i := 0; i < len(line); {
		c := line[i]
		rest := line[i:]
		var t token
		n := 0
		var err error
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
			continue
		case c == '#':
			// A comment runs to the end of its line.
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				return toks, nil
			}
			i += end
			continue
		case c == '"':
			t.kind = tString
			t.text, n, err = unquote(rest, '"')
		case strings.HasPrefix(rest, "```"):
			t, n, err = multiline(rest)
		case c == '`':
			t.kind = tRaw
			t.text, n, err = unquote(rest, '`')
		case c == '/':
			t.kind = tRegex
			t.text, n, err = regexLiteral(rest)
		case strings.HasPrefix(rest, "{{"):
			end := strings.Index(rest, "}}")
			if end < 0 {
				return nil, fmt.Errorf("unterminated template %s", rest)
			}
			t.kind, t.text, n = tTemplate, rest[:end+2], end+2
		case strings.HasPrefix(rest, "hex,"), strings.HasPrefix(rest, "base64,"), strings.HasPrefix(rest, "file,"):
			t, n, err = oneline(rest)
		default:
			n = strings.IndexAny(rest, " \t\n")
			if n < 0 {
				n = len(rest)
			}
			t.kind, t.text = tWord, rest[:n]
		}
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i += n
	}
	return toks, nil
}

// unquote reads the string quoted by q at the start of s and returns its
// value and the bytes it took. Escapes are Hurl's: \" \\ \` \b \f \n \r \t
// and \u{2708}.
func unquote(s string, q byte) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case q:
			return b.String(), i + 1, nil
		case '\n':
			return "", 0, fmt.Errorf("unterminated string %s", strings.TrimSpace(s[:i]))
		case '\\':
			r, n, err := escape(s[i:])
			if err != nil {
				return "", 0, fmt.Errorf("%v in %s", err, firstLine(s))
			}
			b.WriteString(r)
			i += n - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated string %s", s)
}

// escape reads the escape at the start of s (s[0] is '\') and returns what
// it stands for and its length.
func escape(s string) (string, int, error) {
	if len(s) < 2 {
		return "", 0, fmt.Errorf(`a lone \ at the end`)
	}
	switch s[1] {
	case 'n':
		return "\n", 2, nil
	case 't':
		return "\t", 2, nil
	case 'r':
		return "\r", 2, nil
	case 'b':
		return "\b", 2, nil
	case 'f':
		return "\f", 2, nil
	case '"', '\\', '`', '#', ':', '/', '{', '}':
		return s[1:2], 2, nil
	case 'u':
		end := strings.IndexByte(s, '}')
		if !strings.HasPrefix(s[2:], "{") || end < 0 {
			return "", 0, fmt.Errorf(`want \u{hex} for a unicode escape`)
		}
		r, err := strconv.ParseUint(s[3:end], 16, 32)
		if err != nil {
			return "", 0, fmt.Errorf(`\u{%s}: not a hexadecimal code point`, s[3:end])
		}
		return string(rune(r)), end + 1, nil
	}
	return "", 0, fmt.Errorf(`unknown escape \%c (want \" \\ \b \f \n \r \t or \u{hex})`, s[1])
}

// regexLiteral reads /regex/: \/ stands for /, other escapes are the
// regex's own.
func regexLiteral(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '/':
			return b.String(), i + 1, nil
		case s[i] == '\n':
			i = len(s)
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '/':
			b.WriteByte('/')
			i++
		case s[i] == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated regex %s", firstLine(s))
}

// oneline reads hex,…; base64,…; or file,…; at the start of s.
func oneline(s string) (token, int, error) {
	kind, rest, _ := strings.Cut(s, ",")
	end := strings.IndexByte(rest, ';')
	if end < 0 {
		return token{}, 0, fmt.Errorf("%s,… has no closing ';'", kind)
	}
	n := len(kind) + 1 + end + 1
	content := rest[:end]
	switch kind {
	case "file":
		path := strings.TrimSpace(fileEscapes.ReplaceAllString(content, "$1"))
		if path == "" {
			return token{}, 0, fmt.Errorf("file,; names no file")
		}
		return token{kind: tFile, text: path}, n, nil
	case "hex":
		b, err := hex.DecodeString(strings.Join(strings.Fields(content), ""))
		if err != nil {
			return token{}, 0, fmt.Errorf("hex,%s;: %v", content, err)
		}
		return token{kind: tBytes, text: s[:n], bytes: b}, n, nil
	}
	b, err := decodeBase64(strings.Join(strings.Fields(content), ""))
	if err != nil {
		return token{}, 0, fmt.Errorf("base64,%s;: %v", content, err)
	}
	return token{kind: tBytes, text: s[:n], bytes: b}, n, nil
}

// fileEscapes are a file name's escapes: \ followed by the character.
var fileEscapes = regexp.MustCompile(`\\(.)`)

// decodeBase64 reads standard base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	return base64.StdEncoding.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(s, "="))
}

// multiline reads a ```string``` at the start of s: ```one line``` or
// ```[type][,attribute…] on its own line, the lines of the string, and
// ``` on a line of its own. The lines end with a newline. A base64 or hex
// type makes bytes; json, xml and graphql are hints.
func multiline(s string) (token, int, error) {
	first, _, _ := strings.Cut(s, "\n")
	if inner := first[3:]; strings.Contains(inner, "```") {
		end := strings.Index(inner, "```")
		return token{kind: tRaw, text: inner[:end]}, 3 + end + 3, nil
	}
	kind, attrs, err := fenceHeader(first)
	if err != nil {
		return token{}, 0, err
	}
	body, n, ok := fenced(s)
	if !ok {
		return token{}, 0, fmt.Errorf("the ``` string is never closed")
	}
	t := token{kind: tRaw, text: body, noVars: attrs["novariable"] || kind == "raw", hint: kind}
	if attrs["escape"] {
		if t.text, err = unescapeAll(body); err != nil {
			return token{}, 0, err
		}
	}
	switch kind {
	case "hex", "base64":
		content := strings.Join(strings.Fields(body), "")
		var b []byte
		if kind == "hex" {
			b, err = hex.DecodeString(content)
		} else {
			b, err = decodeBase64(content)
		}
		if err != nil {
			return token{}, 0, fmt.Errorf("```%s: %v", kind, err)
		}
		return token{kind: tBytes, text: "```" + kind + "…```", bytes: b}, n, nil
	}
	return t, n, nil
}

// fenceHeader reads ```type,attribute,…: Hurl's types and attributes.
func fenceHeader(line string) (kind string, attrs map[string]bool, err error) {
	attrs = map[string]bool{}
	words := strings.Split(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "```")), ",")
	for i, w := range words {
		w = strings.TrimSpace(w)
		switch {
		case i == 0 && (w == "" || w == "json" || w == "xml" || w == "graphql" || w == "hex" || w == "base64" || w == "raw"):
			kind = w
		case w == "escape" || w == "novariable":
			attrs[w] = true
		default:
			return "", nil, fmt.Errorf("```%s: unknown multiline string type or attribute %q (want base64, hex, json, xml, graphql, raw, escape, novariable)", strings.Join(words, ","), w)
		}
	}
	return kind, attrs, nil
}

// fenced returns the lines between s's first line (its opening ```) and a
// line that is ``` alone, each ending with a newline, and the bytes taken
// up to the closing ```.
func fenced(s string) (string, int, bool) {
	nl := strings.IndexByte(s, '\n')
	if nl < 0 {
		return "", 0, false
	}
	var b strings.Builder
	for i := nl + 1; i <= len(s); {
		end := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		if end >= 0 {
			line = s[i : i+end]
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") {
			return b.String(), i + strings.Index(line, "```") + 3, true
		}
		b.WriteString(line)
		b.WriteByte('\n')
		if end < 0 {
			break
		}
		i += end + 1
	}
	return "", 0, false
}

// unescapeAll undoes the escapes of a ```escape string.
func unescapeAll(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		r, n, err := escape(s[i:])
		if err != nil {
			return "", err
		}
		b.WriteString(r)
		i += n - 1
	}
	return b.String(), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// literal reads a predicate's value or a variable's: a "string", `string`,
// a number, true, false, null, hex,…; base64,…; file,…; /regex/, or a
// {{variable}}.
func literal(t token) (any, error) {
	switch t.kind {
	case tString:
		return tmpl(t.text), nil
	case tRaw:
		s := t.text
		if t.hint == "graphql" {
			b, err := graphQL(s) // as a GraphQL body is sent
			if err != nil {
				return nil, err
			}
			s = string(b)
		}
		if t.noVars {
			return s, nil
		}
		return tmpl(s), nil
	case tBytes:
		return t.bytes, nil
	case tFile:
		return fileRef(t.text), nil
	case tRegex:
		return regexRef(t.text), nil
	case tTemplate:
		return varRef(strings.TrimSpace(t.text[2 : len(t.text)-2])), nil
	}
	switch t.text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n := parseNumber(t.text); n != nil && validNumber(t.text) {
		return n, nil
	}
	return nil, fmt.Errorf("want a value (\"a string\", `a string`, a number, true, false, null, hex,…;, base64,…;, file,…; or {{variable}}), got %s", t.text)
}

// validNumber is Hurl's number: -?digits, with .digits or an exponent.
func validNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// tmpl is a string whose {{variables}} expand when it is used; fileRef a
// file,path; read then; regexRef a /regex/; varRef a {{variable}}'s typed
// value.
type (
	tmpl     string
	fileRef  string
	regexRef string
	varRef   string
)
