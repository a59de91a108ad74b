package apptest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// eval returns a query's value, after its filters, and whether it found
// one. Its arguments' variables are expanded within b.
func (r *entryRun) eval(q Query, deadline time.Time, b *budget) (any, bool, error) {
	args := make([]string, len(q.Args))
	for i, a := range q.Args {
		v, err := r.vars.expand(a, b)
		if err != nil {
			return nil, false, err
		}
		args[i] = v
	}
	var val any
	ok := true
	switch q.Kind {
	case "status":
		val = float64(r.answer.status)
	case "header":
		vals := r.answer.header.Values(args[0])
		ok = len(vals) > 0
		if ok {
			val = strings.Join(vals, ", ")
		}
	case "body":
		val = string(r.answer.body)
	case "jsonpath":
		var err error
		if val, ok, err = jsonPath(args[0], string(r.answer.body)); err != nil {
			return nil, false, err
		}
	case "sse":
		data, found, err := r.streams[args[0]].next(args[1], deadline)
		if err != nil {
			return nil, false, err
		}
		val, ok = data, found
	case "pod":
		val, ok = podField(r.env.State, args[0], args[1])
	case "event":
		val, ok = eventMessage(r.env.State, args[0], args[1])
	}
	for _, f := range q.Filters {
		if !ok {
			break
		}
		var err error
		if val, ok, err = applyFilter(f, val); err != nil {
			return nil, false, err
		}
	}
	return val, ok, nil
}

// jsonPath decodes doc as JSON and returns the value at expr.
func jsonPath(expr, doc string) (any, bool, error) {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return nil, false, fmt.Errorf("not JSON (%v): %s", err, clip(strconv.Quote(doc)))
	}
	return evalPath(expr, v)
}

// applyFilter runs a filter on a value.
func applyFilter(f Filter, v any) (any, bool, error) {
	switch f.Kind {
	case "jsonpath":
		if s, ok := v.(string); ok {
			return jsonPath(f.Arg, s)
		}
		return evalPath(f.Arg, v)
	default: // count
		switch x := v.(type) {
		case []any:
			return float64(len(x)), true, nil
		case map[string]any:
			return float64(len(x)), true, nil
		}
		return nil, false, fmt.Errorf("count: %s is not a list", clip(show(v)))
	}
}

// text is a captured value as a variable holds it.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return show(v)
}
