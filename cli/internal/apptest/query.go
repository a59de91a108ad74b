package apptest

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
)

// hurlQueries are Hurl's queries that read an HTTP answer, and how many
// arguments each takes: "quoted" (regex also takes a /regex/).
var hurlQueries = map[string]int{
	"status": 0, "version": 0, "url": 0, "ip": 0, "header": 1, "cookie": 1,
	"body": 0, "bytes": 0, "rawbytes": 0, "sha256": 0, "md5": 0, "jsonpath": 1, "regex": 1,
	"variable": 1, "duration": 0, "redirects": 0, "xpath": 1, "certificate": 1,
}

// unrunQueries are Hurl's queries that kube32 test reads but cannot run,
// and why: an assert or capture that uses one fails with the reason, and
// the rest of the file runs up to it.
var unrunQueries = map[string]string{
	"xpath":       "kube32 test has no XPath engine; assert on body, regex or jsonpath",
	"certificate": "the cluster's Ingress answers plain HTTP: there is no certificate",
}

// kube32Query is one of kube32's own queries (docs/testing.md): what an
// HTTP answer cannot show. Adding one is adding an entry to kube32Queries.
type kube32Query struct {
	args   int             // "quoted" arguments
	fields map[string]bool // when set, a bare word after them is one of these
	// polled: the assert is looked at again every 100 ms until it holds
	// or --wait passes (the cluster's state follows a request by a moment).
	polled bool
	eval   func(r *entryRun, args []string, deadline time.Time) (any, bool, error)
}

// kube32Queries are kube32's own queries.
var kube32Queries = map[string]kube32Query{
	"sse": {args: 2, eval: func(r *entryRun, args []string, deadline time.Time) (any, bool, error) {
		data, found, err := r.streams[args[0]].next(args[1], deadline)
		return data, found, err
	}},
	"pod": {args: 1, fields: podFields, polled: true, eval: func(r *entryRun, args []string, _ time.Time) (any, bool, error) {
		return podField(r.env.State, args[0], args[1])
	}},
	"event": {args: 2, polled: true, eval: func(r *entryRun, args []string, _ time.Time) (any, bool, error) {
		return eventMessage(r.env.State, args[0], args[1])
	}},
	// board-time is how long the board would take for the callback that
	// answered, in milliseconds as Hurl's duration is (docs/boards.md).
	"board-time": {eval: func(r *entryRun, _ []string, _ time.Time) (any, bool, error) {
		if r.answer == nil {
			return nil, false, nil
		}
		d, _, ok := abi.ParseBoardTiming(r.answer.header.Values(abi.HeaderServerTiming))
		if !ok {
			return nil, false, fmt.Errorf("board-time: the answer carries no board time (no %q entry in %s): no pod answered it",
				abi.ServerTimingMetric, abi.HeaderServerTiming)
		}
		return float64(d) / float64(time.Millisecond), true, nil
	}},
}

// podFields are what the pod query reads.
var podFields = map[string]bool{"restarts": true, "crashed": true, "phase": true, "ready": true, "node": true}

// allQueries lists the queries for messages.
func allQueries() string {
	names := map[string]bool{}
	for k := range hurlQueries {
		names[k] = true
	}
	for k := range kube32Queries {
		names[k] = true
	}
	return known(names)
}

// parseQuery reads a query and its filters from the start of toks and
// returns the tokens after them.
func parseQuery(toks []token) (Query, []token, error) {
	if len(toks) == 0 {
		return Query{}, nil, fmt.Errorf("want a query (%s)", allQueries())
	}
	name := toks[0].text
	if toks[0].kind != tWord {
		return Query{}, nil, fmt.Errorf("want a query (%s), got %s", allQueries(), toks[0].text)
	}
	n, isHurl := hurlQueries[name]
	k32, isK32 := kube32Queries[name]
	if !isHurl && !isK32 {
		return Query{}, nil, fmt.Errorf("unknown query %q: kube32 test knows %s (docs/testing.md)", name, allQueries())
	}
	if isK32 {
		n = k32.args
	}
	q := Query{Kind: name}
	args, rest, err := queryArgs(name, toks[1:], n, name == "regex")
	if err != nil {
		return Query{}, nil, err
	}
	q.Args = args
	if k32.fields != nil {
		if len(rest) == 0 || rest[0].kind != tWord || !k32.fields[rest[0].text] {
			return Query{}, nil, fmt.Errorf("%s %q: want a field after it, one of %s", name, args[0], known(k32.fields))
		}
		q.Args = append(q.Args, rest[0].text)
		rest = rest[1:]
	}
	for _, a := range q.Args {
		if a == tmpl("") {
			return Query{}, nil, fmt.Errorf("%s: an empty argument", name)
		}
	}
	if err := checkArg(q.Kind, q.Args); err != nil {
		return Query{}, nil, err
	}
	for len(rest) > 0 && rest[0].kind == tWord {
		f, after, ok, err := parseFilter(rest)
		if err != nil {
			return Query{}, nil, err
		}
		if !ok {
			break
		}
		q.Filters = append(q.Filters, f)
		rest = after
	}
	return q, rest, nil
}

// queryArgs takes n arguments of name from toks: "quoted" strings, and a
// /regex/ too when regex is set.
func queryArgs(name string, toks []token, n int, regex bool) ([]any, []token, error) {
	var args []any
	for i := 0; i < n; i++ {
		switch {
		case i < len(toks) && toks[i].kind == tString:
			args = append(args, tmpl(toks[i].text))
		case i < len(toks) && regex && toks[i].kind == tRegex:
			args = append(args, regexRef(toks[i].text))
		case regex:
			return nil, nil, fmt.Errorf("%s takes a \"quoted\" argument or a /regex/", name)
		default:
			return nil, nil, fmt.Errorf("%s takes %d \"quoted\" argument(s)", name, n)
		}
	}
	return args, toks[n:], nil
}

// checkArg checks what can be checked of an argument before it runs: a
// JSONPath or a regex without {{variables}}.
func checkArg(kind string, args []any) error {
	if len(args) == 0 {
		return nil
	}
	switch a := args[0].(type) {
	case tmpl:
		if variable.MatchString(string(a)) {
			return nil
		}
		switch kind {
		case "jsonpath":
			_, err := compilePath(string(a))
			return err
		case "regex", "replaceRegex":
			_, err := regexp.Compile(string(a))
			return err
		}
	case regexRef:
		_, err := regexp.Compile(string(a))
		return err
	}
	return nil
}

// String writes the query back as it was written.
func (q Query) String() string {
	parts := []string{q.Kind}
	parts = append(parts, argText(q.Args)...)
	for _, f := range q.Filters {
		parts = append(parts, f.Kind)
		parts = append(parts, argText(f.Args)...)
	}
	return strings.Join(parts, " ")
}

func argText(args []any) []string {
	var out []string
	for _, a := range args {
		switch x := a.(type) {
		case tmpl:
			out = append(out, strconv.Quote(string(x)))
		case regexRef:
			out = append(out, "/"+strings.ReplaceAll(string(x), "/", `\/`)+"/")
		case int64:
			out = append(out, strconv.FormatInt(x, 10))
		default:
			out = append(out, fmt.Sprint(x)) // a bare word: pod "web" restarts
		}
	}
	return out
}

func known[V any](m map[string]V) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
