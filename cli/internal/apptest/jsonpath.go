package apptest

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/theory/jsonpath"
)

// compilePath reads an RFC 9535 JSONPath ($.a, $..a, $[*], $[1:3],
// $[0,1], $[?@.a == 1], …).
func compilePath(expr string) (*jsonpath.Path, error) {
	p, err := jsonpath.Parse(expr)
	if err != nil && strings.Contains(err.Error(), "out of range") {
		// RFC 9535 bounds indexes to I-JSON's integers, not the numbers
		// a filter compares with; the library reads both as int64: a
		// larger integer literal is read as the float it equals.
		if p2, err2 := jsonpath.Parse(bigLiteral.ReplaceAllString(expr, "${1}${2}.0")); err2 == nil {
			return p2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("jsonpath %q: %v", expr, err)
	}
	return p, nil
}

// bigLiteral is an integer of 19 digits or more outside a string.
var bigLiteral = regexp.MustCompile(`([=<>!]\s*-?)([0-9]{19,})\b`)

// selectNodes runs p on doc. The library compares json.Number but not
// *big.Int: big integers go to it as json.Number and come back as they
// were.
func selectNodes(p *jsonpath.Path, doc any) []any {
	if !hasBig(doc) {
		return p.Select(doc)
	}
	nodes := p.Select(bigToNumber(doc))
	for i := range nodes {
		nodes[i] = numbers(nodes[i])
	}
	return nodes
}

func hasBig(v any) bool {
	switch x := v.(type) {
	case *big.Int:
		return true
	case []any:
		for _, e := range x {
			if hasBig(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if hasBig(e) {
				return true
			}
		}
	}
	return false
}

// bigToNumber copies v with each *big.Int as a json.Number.
func bigToNumber(v any) any {
	switch x := v.(type) {
	case *big.Int:
		return json.Number(x.String())
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = bigToNumber(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = bigToNumber(e)
		}
		return out
	}
	return v
}

// pathNodes returns the nodes at expr in doc as a list, however many
// ([Options] no-jsonpath-coercion).
func pathNodes(expr string, doc any) (any, bool, error) {
	p, err := compilePath(expr)
	if err != nil {
		return nil, false, err
	}
	return []any(selectNodes(p, doc)), true, nil
}

// evalPath returns the value at expr in doc (decoded JSON), as Hurl does:
// nothing when no node matches; the node when one does; otherwise the
// list of the nodes.
func evalPath(expr string, doc any) (any, bool, error) {
	p, err := compilePath(expr)
	if err != nil {
		return nil, false, err
	}
	nodes := selectNodes(p, doc)
	switch len(nodes) {
	case 0:
		return nil, false, nil
	case 1:
		return nodes[0], true, nil
	}
	return nodes, true, nil
}
