package apptest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// predicates are the predicates kube32 test knows; exists takes no value.
var predicates = map[string]bool{
	"==": true, "!=": true, ">": true, ">=": true, "<": true, "<=": true,
	"contains": true, "startsWith": true, "endsWith": true, "matches": true, "exists": true,
}

// parsePredicate reads [not] op [value], the end of an assert line.
func parsePredicate(toks []token) (Predicate, error) {
	var p Predicate
	if len(toks) > 0 && !toks[0].quoted && toks[0].text == "not" {
		p.Not = true
		toks = toks[1:]
	}
	if len(toks) == 0 || toks[0].quoted || !predicates[toks[0].text] {
		got := "nothing"
		if len(toks) > 0 {
			got = fmt.Sprintf("%q", toks[0].text)
		}
		return Predicate{}, fmt.Errorf("want a predicate (%s), got %s", known(predicates), got)
	}
	p.Op = toks[0].text
	toks = toks[1:]
	if p.Op != "exists" {
		if len(toks) == 0 {
			return Predicate{}, fmt.Errorf("%s wants a value", p.Op)
		}
		v, err := value(toks[0])
		if err != nil {
			return Predicate{}, err
		}
		p.Value = v
		toks = toks[1:]
		if err := p.check(); err != nil {
			return Predicate{}, err
		}
	}
	if len(toks) > 0 {
		return Predicate{}, fmt.Errorf("unexpected %q after the predicate", toks[0].text)
	}
	return p, nil
}

// check refuses a value the predicate cannot use.
func (p Predicate) check() error {
	_, isString := p.Value.(string)
	_, isNumber := p.Value.(float64)
	switch p.Op {
	case "contains", "startsWith", "endsWith", "matches":
		if !isString {
			return fmt.Errorf("%s wants a \"string\"", p.Op)
		}
		if p.Op == "matches" {
			if _, err := regexp.Compile(p.Value.(string)); err != nil {
				return fmt.Errorf("matches: %v", err)
			}
		}
	case ">", ">=", "<", "<=":
		if !isNumber {
			return fmt.Errorf("%s wants a number", p.Op)
		}
	}
	return nil
}

// String writes the predicate back: not == "x".
func (p Predicate) String() string {
	s := p.Op
	if p.Op != "exists" {
		s += " " + show(p.Value)
	}
	if p.Not {
		s = "not " + s
	}
	return s
}

// holds applies the predicate to a query's value (absent when the query
// found nothing: no such header, path, event, pod).
func (p Predicate) holds(v any, present bool) bool {
	return p.test(v, present) != p.Not
}

func (p Predicate) test(v any, present bool) bool {
	if p.Op == "exists" {
		return present
	}
	if !present {
		return false
	}
	switch p.Op {
	case "==":
		return equal(v, p.Value)
	case "!=":
		return !equal(v, p.Value)
	case ">", ">=", "<", "<=":
		a, ok := number(v)
		b := p.Value.(float64)
		if !ok {
			return false
		}
		switch p.Op {
		case ">":
			return a > b
		case ">=":
			return a >= b
		case "<":
			return a < b
		}
		return a <= b
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	want := p.Value.(string)
	switch p.Op {
	case "contains":
		return strings.Contains(s, want)
	case "startsWith":
		return strings.HasPrefix(s, want)
	case "endsWith":
		return strings.HasSuffix(s, want)
	}
	re, err := regexp.Compile(want) // a {{variable}} may have made it invalid
	return err == nil && re.MatchString(s)
}

// equal compares like Hurl: numbers by value, others by type and value.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a.(type) {
	case string, bool, nil:
		return a == b
	}
	return false // objects and arrays: compare a field or count them
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// show writes a value for a message: strings quoted, JSON as JSON.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
