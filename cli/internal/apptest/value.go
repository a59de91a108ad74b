package apptest

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A value is what a query, a filter or a variable yields, with Hurl's types
// (docs/testing.md): string, int64 (an integer), *big.Int (one past int64),
// float64, bool, nil (null), []any (a list), map[string]any (an object),
// []byte (bytes) or time.Time (a date).

// decodeJSON decodes a JSON document keeping Hurl's number types: 1 is an
// integer, 1.0 a float, 1000000000000000000000 a big integer.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return numbers(v), nil
}

// numbers replaces each json.Number in v by an int64, *big.Int or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return parseNumber(string(x))
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = numbers(x[k])
		}
	}
	return v
}

// parseNumber reads a number as Hurl types it: without '.' or an exponent
// it is an integer. It returns nil when s is not a number.
func parseNumber(s string) any {
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		if b, ok := new(big.Int).SetString(s, 10); ok {
			return b
		}
		return nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f
	}
	return nil
}

// number returns a number's value as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case *big.Int:
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	}
	return 0, false
}

// bigOf returns an integer as a *big.Int; ok is false for a float or a
// non-number.
func bigOf(v any) (*big.Int, bool) {
	switch n := v.(type) {
	case int64:
		return big.NewInt(n), true
	case int:
		return big.NewInt(int64(n)), true
	case *big.Int:
		return n, true
	}
	return nil, false
}

func isInteger(v any) bool { _, ok := bigOf(v); return ok }

// equal compares like Hurl: numbers by value (1 == 1.0), dates by instant,
// bytes by content, lists and objects member by member; a string never
// equals a number.
func equal(a, b any) bool {
	if x, ok := bigOf(a); ok {
		if y, ok := bigOf(b); ok {
			return x.Cmp(y) == 0
		}
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case string, bool, nil:
		return a == b
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// compare orders two numbers, two strings or two dates: -1, 0 or 1; ok is
// false when they are not of one of these kinds.
func compare(a, b any) (int, bool) {
	if x, ok := bigOf(a); ok {
		if y, ok := bigOf(b); ok {
			return x.Cmp(y), true
		}
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return strings.Compare(x, y), ok
	case time.Time:
		y, ok := b.(time.Time)
		return x.Compare(y), ok
	}
	return 0, false
}

// typeName names a value's type for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64, int, *big.Int:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	case []byte:
		return "bytes"
	case time.Time:
		return "date"
	}
	return fmt.Sprintf("%T", v)
}

// show writes a value for a message: strings quoted, bytes as hex, JSON as
// JSON.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case []byte:
		return "hex," + hex.EncodeToString(x) + ";"
	}
	return text(v)
}

// text is a value as a variable renders it in a template: a string as
// itself, a number as written, a date in RFC 3339, a list or an object as
// JSON.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0" // a float stays one: 1.0, as Hurl writes it
		}
		return s
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case *big.Int:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case []byte:
		return hex.EncodeToString(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = jsonText(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ":" + jsonText(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprint(v)
}

// jsonText writes a member of a list or an object: strings quoted.
func jsonText(v any) string {
	if s, ok := v.(string); ok {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return text(v)
}
