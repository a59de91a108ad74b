package apptest

import (
	"fmt"
	"sort"
	"strings"
)

// queries are the queries kube32 test knows and how many quoted
// arguments each takes: Hurl's status, header, body and jsonpath, and
// kube32's sse, pod and event (docs/testing.md).
var queries = map[string]int{
	"status": 0, "header": 1, "body": 0, "jsonpath": 1,
	"sse": 2, "pod": 1, "event": 2, // pod also takes a bare field: pod "web" restarts
}

// filters are the filters and their argument counts.
var filters = map[string]int{"jsonpath": 1, "count": 0}

// podFields are what the pod query reads.
var podFields = map[string]bool{"restarts": true, "crashed": true, "phase": true, "ready": true, "node": true}

// parseQuery reads a query and its filters from the start of toks and
// returns the tokens after them.
func parseQuery(toks []token) (Query, []token, error) {
	if len(toks) == 0 {
		return Query{}, nil, fmt.Errorf("want a query (%s)", known(queries))
	}
	name := toks[0].text
	n, ok := queries[name]
	if !ok || toks[0].quoted {
		return Query{}, nil, fmt.Errorf("unknown query %q: kube32 test knows %s (docs/testing.md)", name, known(queries))
	}
	q := Query{Kind: name}
	args, rest, err := quotedArgs(name, toks[1:], n)
	if err != nil {
		return Query{}, nil, err
	}
	q.Args = args
	if name == "pod" {
		if len(rest) == 0 || rest[0].quoted || !podFields[rest[0].text] {
			return Query{}, nil, fmt.Errorf("pod %q: want a field after it, one of %s", args[0], known(podFields))
		}
		q.Args = append(q.Args, rest[0].text)
		rest = rest[1:]
	}
	for len(rest) > 0 && !rest[0].quoted {
		n, ok := filters[rest[0].text]
		if !ok {
			break
		}
		f := Filter{Kind: rest[0].text}
		fargs, after, err := quotedArgs(f.Kind, rest[1:], n)
		if err != nil {
			return Query{}, nil, err
		}
		if n == 1 {
			f.Arg = fargs[0]
		}
		q.Filters = append(q.Filters, f)
		rest = after
	}
	for _, s := range append(q.Args, filterArgs(q)...) {
		if s == "" {
			return Query{}, nil, fmt.Errorf("%s: an empty argument", name)
		}
	}
	for _, expr := range jsonPaths(q) {
		if _, err := compilePath(expr); err != nil {
			return Query{}, nil, err
		}
	}
	return q, rest, nil
}

// quotedArgs takes n "quoted" arguments of name from toks.
func quotedArgs(name string, toks []token, n int) ([]string, []token, error) {
	var args []string
	for i := 0; i < n; i++ {
		if i >= len(toks) || !toks[i].quoted {
			return nil, nil, fmt.Errorf("%s takes %d \"quoted\" argument(s)", name, n)
		}
		args = append(args, toks[i].text)
	}
	return args, toks[n:], nil
}

// jsonPaths are the JSONPath expressions of q, its own and its filters'.
func jsonPaths(q Query) []string {
	paths := filterArgs(q)
	if q.Kind == "jsonpath" {
		paths = append(paths, q.Args[0])
	}
	return paths
}

func filterArgs(q Query) []string {
	var args []string
	for _, f := range q.Filters {
		if f.Kind == "jsonpath" {
			args = append(args, f.Arg)
		}
	}
	return args
}

// String writes the query back as it was written.
func (q Query) String() string {
	parts := []string{q.Kind}
	for i, a := range q.Args {
		if q.Kind == "pod" && i == 1 {
			parts = append(parts, a) // the field, a bare word
			continue
		}
		parts = append(parts, fmt.Sprintf("%q", a))
	}
	for _, f := range q.Filters {
		parts = append(parts, f.Kind)
		if f.Kind == "jsonpath" {
			parts = append(parts, fmt.Sprintf("%q", f.Arg))
		}
	}
	return strings.Join(parts, " ")
}

func known[V any](m map[string]V) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
