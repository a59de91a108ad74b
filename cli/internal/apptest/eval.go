package apptest

import (
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// eval returns a query's value, after its filters, and whether it found
// one. Its arguments' variables are expanded within b.
func (r *entryRun) eval(q Query, deadline time.Time, b *budget) (any, bool, error) {
	args, err := r.expandArgs(q.Args, b)
	if err != nil {
		return nil, false, err
	}
	strs := make([]string, len(args))
	for i, a := range args {
		strs[i], _ = a.(string)
	}
	val, ok, err := r.query(q.Kind, args, strs, deadline)
	if err != nil {
		return nil, false, err
	}
	for _, f := range q.Filters {
		if !ok {
			break
		}
		fargs, err := r.expandArgs(f.Args, b)
		if err != nil {
			return nil, false, err
		}
		if val, ok, err = applyFilter(f, val, fargs); err != nil {
			return nil, false, err
		}
	}
	return val, ok, nil
}

// expandArgs expands the "quoted" arguments: a tmpl becomes its string.
func (r *entryRun) expandArgs(args []any, b *budget) ([]any, error) {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(tmpl); ok {
			s, err := r.vars.expand(string(t), b)
			if err != nil {
				return nil, err
			}
			out[i] = s
			continue
		}
		out[i] = a
	}
	return out, nil
}

// query reads one query's value.
func (r *entryRun) query(kind string, args []any, strs []string, deadline time.Time) (any, bool, error) {
	a := r.answer
	if why, ok := unrunQueries[kind]; ok {
		return nil, false, fmt.Errorf("query %s is not supported by kube32 test: %s (docs/testing.md)", kind, why)
	}
	switch kind {
	case "redirects":
		return a.redirects, true, nil
	case "rawbytes":
		return a.raw, true, nil
	case "status":
		return int64(a.status), true, nil
	case "version":
		return a.version, true, nil
	case "url":
		return a.url, true, nil
	case "ip":
		return a.ip, a.ip != "", nil
	case "duration":
		return a.duration.Milliseconds(), true, nil
	case "header":
		vals := a.header.Values(strs[0])
		switch len(vals) {
		case 0:
			return nil, false, nil
		case 1:
			return vals[0], true, nil
		}
		list := make([]any, len(vals))
		for i, v := range vals {
			list[i] = v
		}
		return list, true, nil
	case "cookie":
		v, ok := cookie(a.header, strs[0])
		return v, ok, nil
	case "variable":
		v, ok := r.vars[strs[0]]
		return v, ok, nil
	case "bytes", "sha256", "md5":
		b, err := a.bytes()
		if err != nil {
			return nil, false, err
		}
		switch kind {
		case "sha256":
			sum := sha256.Sum256(b)
			return sum[:], true, nil
		case "md5":
			sum := md5.Sum(b)
			return sum[:], true, nil
		}
		return b, true, nil
	case "body", "jsonpath", "regex":
		body, err := a.text()
		if err != nil {
			return nil, false, err
		}
		switch kind {
		case "jsonpath":
			doc, err := decodeJSON([]byte(body))
			if err != nil {
				return nil, false, fmt.Errorf("not JSON (%v): %s", err, clip(show(body)))
			}
			if r.opts.noCoercion {
				return pathNodes(strs[0], doc)
			}
			return evalPath(strs[0], doc)
		case "regex":
			re, err := compileArg(args[0])
			if err != nil {
				return nil, false, err
			}
			return regexFind(re, body)
		}
		return body, true, nil
	}
	if k, ok := kube32Queries[kind]; ok {
		return k.eval(r, strs, deadline)
	}
	return nil, false, fmt.Errorf("query %s: unknown", kind)
}

// cookie reads a cookie the answer sets: "name" is its value,
// "name[Attribute]" one of its attributes (Value, Expires, Max-Age,
// Domain, Path, Secure, HttpOnly, SameSite); Secure and HttpOnly exist
// when set.
func cookie(h http.Header, ref string) (any, bool) {
	name, attr := ref, "Value"
	if i := strings.IndexByte(ref, '['); i >= 0 && strings.HasSuffix(ref, "]") {
		name, attr = ref[:i], ref[i+1:len(ref)-1]
	}
	var found *http.Cookie
	for _, line := range h.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil && c.Name == name {
			found = c
		}
	}
	if found == nil {
		return nil, false
	}
	switch strings.ToLower(attr) {
	case "value":
		return found.Value, true
	case "expires":
		return found.Expires.UTC(), !found.Expires.IsZero()
	case "max-age":
		if found.MaxAge == 0 && !strings.Contains(strings.ToLower(found.Raw), "max-age") {
			return nil, false
		}
		if found.MaxAge < 0 {
			return int64(0), true
		}
		return int64(found.MaxAge), true
	case "domain":
		return found.Domain, found.Domain != ""
	case "path":
		return found.Path, found.Path != ""
	case "secure":
		return true, found.Secure
	case "httponly":
		return true, found.HttpOnly
	case "samesite":
		switch found.SameSite {
		case http.SameSiteLaxMode:
			return "Lax", true
		case http.SameSiteStrictMode:
			return "Strict", true
		case http.SameSiteNoneMode:
			return "None", true
		}
	}
	return nil, false
}

// readValue reads a predicate's value for one run: its variables
// expanded, its file read, its regex compiled.
func (r *entryRun) readValue(p Predicate, b *budget) (any, error) {
	switch v := p.Value.(type) {
	case tmpl:
		s, err := r.vars.expand(string(v), b)
		if err != nil {
			return nil, err
		}
		if p.Op == "matches" {
			return compileArg(s)
		}
		return s, nil
	case regexRef:
		return compileArg(v)
	case varRef:
		val, ok := r.vars.lookup(string(v))
		if !ok {
			return nil, r.vars.unknown(string(v))
		}
		if s, isString := val.(string); isString && p.Op == "matches" {
			return compileArg(s)
		}
		return val, nil
	case fileRef:
		return r.readFile(0, string(v))
	case bodyRef:
		data, err := r.bodyBytes(Body(v), b)
		if err != nil {
			return nil, err
		}
		switch v.Kind {
		case "bytes", "file":
			return data, nil
		case "json":
			doc, err := decodeJSON(data)
			if err != nil {
				return nil, fmt.Errorf("the expected JSON body is not JSON once its variables are expanded: %v", err)
			}
			return jsonBody{doc}, nil
		}
		return string(data), nil
	}
	return p.Value, nil
}
