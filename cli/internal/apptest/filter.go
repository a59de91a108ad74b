package apptest

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// filters are Hurl's filters and their arguments: s a "string", r a
// "string" or a /regex/, n an integer.
var filters = map[string]string{
	"base64Decode": "", "base64Encode": "", "base64UrlSafeDecode": "", "base64UrlSafeEncode": "",
	"count": "", "daysAfterNow": "", "daysBeforeNow": "", "decode": "s", "first": "", "last": "", "nth": "n",
	"format": "s", "dateFormat": "s", "htmlEscape": "", "htmlUnescape": "", "jsonpath": "s",
	"regex": "r", "replace": "rs", "replaceRegex": "rs", "split": "s", "toDate": "s",
	"toFloat": "", "toHex": "", "toInt": "", "toString": "", "urlDecode": "", "urlEncode": "",
	"urlQueryParam": "s", "utf8Decode": "", "utf8Encode": "", "charsetDecode": "s", "location": "",
	"xpath": "s",
}

// parseFilter reads a filter at the start of toks; ok is false when the
// first token is not a filter's name (it is then the predicate's).
func parseFilter(toks []token) (Filter, []token, bool, error) {
	name := toks[0].text
	spec, ok := filters[name]
	if !ok {
		return Filter{}, nil, false, nil
	}
	f := Filter{Kind: name}
	rest := toks[1:]
	for _, kind := range spec {
		if len(rest) == 0 {
			return Filter{}, nil, false, fmt.Errorf("%s wants %s", name, filterUsage(name))
		}
		t := rest[0]
		switch {
		case t.kind == tString:
			if kind == 'n' {
				return Filter{}, nil, false, fmt.Errorf("%s wants %s", name, filterUsage(name))
			}
			f.Args = append(f.Args, tmpl(t.text))
		case t.kind == tRegex && kind == 'r':
			f.Args = append(f.Args, regexRef(t.text))
		case t.kind == tWord && kind == 'n':
			n, err := strconv.ParseInt(t.text, 10, 64)
			if err != nil {
				return Filter{}, nil, false, fmt.Errorf("%s wants %s, got %s", name, filterUsage(name), t.text)
			}
			f.Args = append(f.Args, n)
		default:
			return Filter{}, nil, false, fmt.Errorf("%s wants %s, got %s", name, filterUsage(name), t.text)
		}
		rest = rest[1:]
	}
	if len(f.Args) > 0 {
		kind := name
		if name == "replace" {
			kind = "" // its "string" is not a regex
		}
		if err := checkArg(kind, f.Args); err != nil {
			return Filter{}, nil, false, err
		}
	}
	return f, rest, true, nil
}

func filterUsage(name string) string {
	var words []string
	for _, k := range filters[name] {
		words = append(words, map[rune]string{'s': `a "string"`, 'r': `a "string" or a /regex/`, 'n': "an integer"}[k])
	}
	return strings.Join(words, " then ")
}

// applyFilter runs a filter on a value; its arguments are expanded
// already (strings, regexRef, int64).
func applyFilter(f Filter, v any, args []any) (any, bool, error) {
	fail := func(want string) (any, bool, error) {
		return nil, false, fmt.Errorf("%s: want %s, got %s %s", f.Kind, want, typeName(v), clip(show(v)))
	}
	str, isStr := v.(string)
	raw, isBytes := v.([]byte)
	date, isDate := v.(time.Time)
	list, isList := v.([]any)
	switch f.Kind {
	case "count":
		switch x := v.(type) {
		case []any:
			return int64(len(x)), true, nil
		case map[string]any:
			return int64(len(x)), true, nil
		case []byte:
			return int64(len(x)), true, nil
		}
		return fail("a list")
	case "first", "last", "nth":
		if !isList {
			return fail("a list")
		}
		i := int64(0)
		switch f.Kind {
		case "last":
			i = -1
		case "nth":
			i = args[0].(int64)
		}
		if i < 0 {
			i += int64(len(list))
		}
		if i < 0 || i >= int64(len(list)) {
			return nil, false, nil // out of bounds: nothing
		}
		return list[i], true, nil
	case "jsonpath":
		doc := v
		if isStr {
			d, err := decodeJSON([]byte(str))
			if err != nil {
				return nil, false, fmt.Errorf("jsonpath: not JSON (%v): %s", err, clip(show(v)))
			}
			doc = d
		}
		return evalPath(args[0].(string), doc)
	case "base64Decode", "base64UrlSafeDecode":
		if !isStr {
			return fail("a string")
		}
		enc := base64.StdEncoding
		if f.Kind == "base64UrlSafeDecode" {
			enc = base64.URLEncoding
		}
		b, err := enc.WithPadding(base64.NoPadding).DecodeString(strings.TrimRight(str, "="))
		if err != nil {
			return nil, false, fmt.Errorf("%s: %v", f.Kind, err)
		}
		return b, true, nil
	case "base64Encode", "base64UrlSafeEncode", "toHex", "utf8Decode":
		b := raw
		if isStr && f.Kind != "utf8Decode" {
			b, isBytes = []byte(str), true
		}
		if !isBytes {
			return fail("bytes")
		}
		switch f.Kind {
		case "base64Encode":
			return base64.StdEncoding.EncodeToString(b), true, nil
		case "base64UrlSafeEncode":
			return base64.RawURLEncoding.EncodeToString(b), true, nil
		case "toHex":
			return hex.EncodeToString(b), true, nil
		}
		if !utf8.Valid(b) {
			return nil, false, fmt.Errorf("utf8Decode: not UTF-8: %s", clip(show(v)))
		}
		return string(b), true, nil
	case "utf8Encode":
		if !isStr {
			return fail("a string")
		}
		return []byte(str), true, nil
	case "xpath":
		return nil, false, fmt.Errorf("filter xpath is not supported by kube32 test: %s (docs/testing.md)", unrunQueries["xpath"])
	case "location":
		if r, ok := v.(map[string]any); ok && r["location"] != nil {
			return r["location"], true, nil
		}
		return fail("a redirect (redirects nth 0)")
	case "decode", "charsetDecode":
		if !isBytes {
			return fail("bytes")
		}
		s, err := decodeCharset(raw, args[0].(string))
		if err != nil {
			return nil, false, fmt.Errorf("decode: %v", err)
		}
		return s, true, nil
	case "daysAfterNow", "daysBeforeNow":
		if !isDate {
			return fail("a date (toDate)")
		}
		d := time.Until(date)
		if f.Kind == "daysBeforeNow" {
			d = -d
		}
		return int64(d / (24 * time.Hour)), true, nil
	case "format", "dateFormat":
		if !isDate {
			return fail("a date (toDate)")
		}
		s, err := formatDate(date, args[0].(string))
		return s, err == nil, err
	case "toDate":
		if !isStr {
			return fail("a string")
		}
		d, err := parseDate(str, args[0].(string))
		if err != nil {
			return nil, false, fmt.Errorf("toDate %q: %v", args[0], err)
		}
		return d, true, nil
	case "toString":
		return text(v), true, nil
	case "toInt":
		switch x := v.(type) {
		case int64:
			return x, true, nil
		case float64:
			return int64(math.Trunc(x)), true, nil
		case string:
			if n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
				return n, true, nil
			}
		}
		if isInteger(v) {
			return v, true, nil
		}
		return fail("an integer, a float or a string of an integer")
	case "toFloat":
		if n, ok := number(v); ok {
			return n, true, nil
		}
		if isStr {
			if n, err := strconv.ParseFloat(strings.TrimSpace(str), 64); err == nil {
				return n, true, nil
			}
		}
		return fail("a number or a string of one")
	}
	// The rest read a string.
	if !isStr {
		return fail("a string")
	}
	switch f.Kind {
	case "htmlEscape":
		return htmlEscaper.Replace(str), true, nil
	case "htmlUnescape":
		return html.UnescapeString(str), true, nil
	case "urlEncode":
		return urlEncode(str), true, nil
	case "urlDecode":
		s, err := url.PathUnescape(str)
		if err != nil {
			return nil, false, fmt.Errorf("urlDecode: %v", err)
		}
		return s, true, nil
	case "urlQueryParam":
		u, err := url.Parse(str)
		if err != nil {
			return nil, false, fmt.Errorf("urlQueryParam: %v", err)
		}
		q := u.Query()
		if !q.Has(args[0].(string)) {
			return nil, false, nil
		}
		return q.Get(args[0].(string)), true, nil
	case "split":
		var out []any
		for _, s := range strings.Split(str, args[0].(string)) {
			out = append(out, s)
		}
		return out, true, nil
	case "regex":
		re, err := compileArg(args[0])
		if err != nil {
			return nil, false, err
		}
		return regexFind(re, str)
	case "replace", "replaceRegex":
		if old, literal := args[0].(string); literal && f.Kind == "replace" {
			return strings.ReplaceAll(str, old, args[1].(string)), true, nil
		}
		re, err := compileArg(args[0])
		if err != nil {
			return nil, false, err
		}
		return re.ReplaceAllString(str, args[1].(string)), true, nil
	}
	return nil, false, fmt.Errorf("filter %s: unknown", f.Kind)
}

// compileArg compiles a regex argument: a /regex/ or a "string".
func compileArg(a any) (*regexp.Regexp, error) {
	var src string
	switch x := a.(type) {
	case regexRef:
		src = string(x)
	case string:
		src = x
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %v", src, err)
	}
	return re, nil
}

// regexFind is Hurl's regex query and filter: the first group's match (the
// whole match when the regex has no group); nothing when it does not
// match.
func regexFind(re *regexp.Regexp, s string) (any, bool, error) {
	m := re.FindStringSubmatch(s)
	switch {
	case m == nil:
		return nil, false, nil
	case len(m) > 1:
		return m[1], true, nil
	}
	return m[0], true, nil
}

// htmlEscaper escapes as Hurl's htmlEscape: & < > " '.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// urlEncode percent-encodes every byte but letters, digits and - . _ ~ /,
// as Hurl's urlEncode.
func urlEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
