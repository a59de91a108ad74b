package apptest

import (
	"fmt"

	"github.com/theory/jsonpath"
)

// compilePath reads an RFC 9535 JSONPath ($.a, $..a, $[*], $[1:3],
// $[0,1], $[?@.a == 1], …).
func compilePath(expr string) (*jsonpath.Path, error) {
	p, err := jsonpath.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("jsonpath %q: %v", expr, err)
	}
	return p, nil
}

// evalPath returns the value at expr in doc (decoded JSON), as Hurl does:
// nothing when no node matches; the node when one does (a query that
// selects at most one node, such as $.a[0], always returns its node, a
// list included); otherwise the list of the nodes.
func evalPath(expr string, doc any) (any, bool, error) {
	p, err := compilePath(expr)
	if err != nil {
		return nil, false, err
	}
	nodes := p.Select(doc)
	switch len(nodes) {
	case 0:
		return nil, false, nil
	case 1:
		return nodes[0], true, nil
	}
	return []any(nodes), true, nil
}
