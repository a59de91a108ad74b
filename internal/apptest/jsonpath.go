package apptest

import (
	"fmt"
	"strconv"
	"strings"
)

// step is one step of a JSONPath: an object's member or an array's index.
type step struct {
	key   string
	index int
	isKey bool
}

// compilePath reads the JSONPath subset kube32 test knows: $ followed by
// .name, ['name'] and [n] steps (docs/testing.md).
func compilePath(expr string) ([]step, error) {
	if !strings.HasPrefix(expr, "$") {
		return nil, fmt.Errorf("jsonpath %q: starts with $", expr)
	}
	var steps []step
	rest := expr[1:]
	for rest != "" {
		switch {
		case rest[0] == '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name := rest[1 : 1+end]
			if name == "" {
				return nil, fmt.Errorf("jsonpath %q: an empty name after '.' (kube32 test has no '..')", expr)
			}
			steps = append(steps, step{key: name, isKey: true})
			rest = rest[1+end:]
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("jsonpath %q: '[' without ']'", expr)
			}
			inside := rest[1:end]
			if len(inside) >= 2 && (inside[0] == '\'' || inside[0] == '"') && inside[len(inside)-1] == inside[0] {
				steps = append(steps, step{key: inside[1 : len(inside)-1], isKey: true})
			} else if n, err := strconv.Atoi(inside); err == nil && n >= 0 {
				steps = append(steps, step{index: n})
			} else {
				return nil, fmt.Errorf("jsonpath %q: [%s]: want an index or a 'name' (kube32 test has no filters or wildcards)", expr, inside)
			}
			rest = rest[end+1:]
		default:
			return nil, fmt.Errorf("jsonpath %q: want '.' or '[' at %q", expr, rest)
		}
	}
	return steps, nil
}

// evalPath returns the value at expr in doc (decoded JSON), and whether
// there is one.
func evalPath(expr string, doc any) (any, bool, error) {
	steps, err := compilePath(expr)
	if err != nil {
		return nil, false, err
	}
	v := doc
	for _, s := range steps {
		if s.isKey {
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, false, nil
			}
			if v, ok = obj[s.key]; !ok {
				return nil, false, nil
			}
			continue
		}
		arr, ok := v.([]any)
		if !ok || s.index >= len(arr) {
			return nil, false, nil
		}
		v = arr[s.index]
	}
	return v, true, nil
}
