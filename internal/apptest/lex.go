package apptest

import (
	"fmt"
	"strconv"
	"strings"
)

// token is one word of an assert or capture line: a bare word, or a
// "quoted" string with its escapes undone.
type token struct {
	text   string
	quoted bool
}

// tokenize splits an assert or capture line into tokens; an unquoted #
// starts a comment.
func tokenize(line string) ([]token, error) {
	var toks []token
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ' || c == '\t':
			i++
		case c == '#':
			return toks, nil
		case c == '"':
			s, n, err := unquote(line[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{text: s, quoted: true})
			i += n
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			toks = append(toks, token{text: line[i:j]})
			i = j
		}
	}
	return toks, nil
}

// unquote reads the "string" at the start of s and returns its value and
// the bytes it took.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 == len(s) {
				return "", 0, fmt.Errorf("unterminated string %s", s)
			}
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(s[i])
			default:
				return "", 0, fmt.Errorf(`unknown escape \%c in %s (want \" \\ \n \t or \r)`, s[i], s)
			}
		default:
			b.WriteByte(s[i])
		}
	}
	return "", 0, fmt.Errorf("unterminated string %s", s)
}

// value reads a predicate's value: a "string", a number, true, false or
// null.
func value(t token) (any, error) {
	if t.quoted {
		return t.text, nil
	}
	switch t.text {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if f, err := strconv.ParseFloat(t.text, 64); err == nil {
		return f, nil
	}
	return nil, fmt.Errorf(`want a value ("a string", a number, true, false or null), got %s`, t.text)
}
