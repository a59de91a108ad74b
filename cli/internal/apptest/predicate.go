package apptest

import (
	"bytes"
	"fmt"
	"net/netip"
	"regexp"
	"strings"
	"time"
)

// predicates are Hurl's predicates and whether each takes a value; the
// words are Hurl's older names of the comparisons.
var predicates = map[string]bool{
	"==": true, "!=": true, ">": true, ">=": true, "<": true, "<=": true,
	"equals": true, "notEquals": true, "greaterThan": true, "greaterThanOrEquals": true, "lessThan": true, "lessThanOrEquals": true,
	"contains": true, "includes": true, "startsWith": true, "endsWith": true, "matches": true,
	"exists": false, "isBoolean": false, "isCollection": false, "isDate": false, "isEmpty": false,
	"isFloat": false, "isInteger": false, "isIsoDate": false, "isNumber": false, "isString": false,
	"isList": false, "isObject": false, "isIpv4": false, "isIpv6": false, "isUuid": false,
}

// aliases are the older names, as the symbols they stand for.
var aliases = map[string]string{
	"equals": "==", "notEquals": "!=", "greaterThan": ">", "greaterThanOrEquals": ">=", "lessThan": "<", "lessThanOrEquals": "<=",
}

// parsePredicate reads [not] op [value], the end of an assert line.
func parsePredicate(toks []token) (Predicate, error) {
	var p Predicate
	if len(toks) > 0 && toks[0].bare("not") {
		p.Not = true
		toks = toks[1:]
	}
	if len(toks) == 0 || toks[0].kind != tWord {
		got := "nothing"
		if len(toks) > 0 {
			got = fmt.Sprintf("%q", toks[0].text)
		}
		return Predicate{}, fmt.Errorf("want a predicate (%s), got %s", known(predicates), got)
	}
	takesValue, ok := predicates[toks[0].text]
	if !ok {
		return Predicate{}, fmt.Errorf("want a filter (%s) or a predicate (%s), got %q", known(filters), known(predicates), toks[0].text)
	}
	p.Op = toks[0].text
	if a, ok := aliases[p.Op]; ok {
		p.Op = a
	}
	toks = toks[1:]
	if takesValue {
		if len(toks) == 0 {
			return Predicate{}, fmt.Errorf("%s wants a value", p.Op)
		}
		v, err := literal(toks[0])
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
	switch v := p.Value.(type) {
	case regexRef:
		if p.Op != "matches" {
			return fmt.Errorf("%s takes no /regex/ (matches does)", p.Op)
		}
		if _, err := regexp.Compile(string(v)); err != nil {
			return fmt.Errorf("matches: %v", err)
		}
	case tmpl:
		if p.Op == "matches" && !variable.MatchString(string(v)) {
			if _, err := regexp.Compile(string(v)); err != nil {
				return fmt.Errorf("matches: %v", err)
			}
		}
	case varRef:
	default:
		switch p.Op {
		case "startsWith", "endsWith":
			if _, ok := v.([]byte); !ok {
				return fmt.Errorf("%s wants a \"string\" or bytes", p.Op)
			}
		case "matches":
			return fmt.Errorf("matches wants a \"regex\" or a /regex/")
		case ">", ">=", "<", "<=":
			if _, ok := number(v); !ok {
				return fmt.Errorf("%s wants a number, a \"string\" or a date", p.Op)
			}
		}
	}
	return nil
}

// String writes the predicate back: not == "x".
func (p Predicate) String() string {
	s := p.Op
	if predicates[p.Op] {
		s += " " + showLiteral(p.Value)
	}
	if p.Not {
		s = "not " + s
	}
	return s
}

// showLiteral writes a predicate's value as written.
func showLiteral(v any) string {
	switch x := v.(type) {
	case tmpl:
		return show(string(x))
	case fileRef:
		return "file," + string(x) + ";"
	case regexRef:
		return "/" + string(x) + "/"
	case varRef:
		return "{{" + string(x) + "}}"
	}
	return show(v)
}

// holds applies the predicate to a query's value (absent when the query
// found nothing: no such header, path, event, pod); want is the
// predicate's value, read.
func (p Predicate) holds(v any, present bool, want any) bool {
	return p.test(v, present, want) != p.Not
}

func (p Predicate) test(v any, present bool, want any) bool {
	if p.Op == "exists" {
		return present
	}
	if !present {
		return false
	}
	switch p.Op {
	case "==":
		return equalBody(v, want)
	case "!=":
		return !equalBody(v, want)
	case ">", ">=", "<", "<=":
		c, ok := compare(v, want)
		if !ok {
			return false
		}
		switch p.Op {
		case ">":
			return c > 0
		case ">=":
			return c >= 0
		case "<":
			return c < 0
		}
		return c <= 0
	case "includes":
		return includes(v, want)
	case "contains":
		switch x := v.(type) {
		case string:
			w, ok := want.(string)
			return ok && strings.Contains(x, w)
		case []byte:
			w, ok := want.([]byte)
			return ok && bytes.Contains(x, w)
		}
		return includes(v, want) // Hurl's older contains of a list
	case "startsWith", "endsWith":
		if x, ok := v.([]byte); ok {
			w, ok := want.([]byte)
			if p.Op == "startsWith" {
				return ok && bytes.HasPrefix(x, w)
			}
			return ok && bytes.HasSuffix(x, w)
		}
		x, ok1 := v.(string)
		w, ok2 := want.(string)
		if !ok1 || !ok2 {
			return false
		}
		if p.Op == "startsWith" {
			return strings.HasPrefix(x, w)
		}
		return strings.HasSuffix(x, w)
	case "matches":
		x, ok := v.(string)
		re, isRe := want.(*regexp.Regexp)
		return ok && isRe && re.MatchString(x)
	}
	return isType(p.Op, v)
}

// includes is a list's member test.
func includes(v, want any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		if equal(e, want) {
			return true
		}
	}
	return false
}

// isType runs the predicates that test a value's type or form.
func isType(op string, v any) bool {
	s, isString := v.(string)
	switch op {
	case "isBoolean":
		_, ok := v.(bool)
		return ok
	case "isString":
		return isString
	case "isInteger":
		return isInteger(v)
	case "isFloat":
		_, ok := v.(float64)
		return ok
	case "isNumber":
		_, ok := number(v)
		return ok
	case "isDate":
		_, ok := v.(time.Time)
		return ok
	case "isList":
		_, ok := v.([]any)
		return ok
	case "isObject":
		_, ok := v.(map[string]any)
		return ok
	case "isCollection":
		switch v.(type) {
		case []any, map[string]any, []byte:
			return true
		}
		return false
	case "isEmpty":
		switch x := v.(type) {
		case []any:
			return len(x) == 0
		case map[string]any:
			return len(x) == 0
		case []byte:
			return len(x) == 0
		case string:
			return x == ""
		}
		return false
	case "isIsoDate":
		_, err := time.Parse(time.RFC3339Nano, s)
		return isString && err == nil
	case "isIpv4", "isIpv6":
		a, err := netip.ParseAddr(s)
		return isString && err == nil && (op == "isIpv4") == a.Is4()
	case "isUuid":
		return isString && uuidForm.MatchString(s)
	}
	return false
}

var uuidForm = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// jsonBody is the answer's body as an entry writes it in JSON: it equals
// a body that is the same JSON value, however laid out.
type jsonBody struct{ doc any }

// equalBody is equal, with a JSON body compared as JSON.
func equalBody(v, want any) bool {
	if j, ok := want.(jsonBody); ok {
		s, isString := v.(string)
		if !isString {
			return false
		}
		got, err := decodeJSON([]byte(s))
		return err == nil && equal(got, j.doc)
	}
	return equal(v, want)
}
