package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// request builds the entry's request, its variables expanded: within
// abi.TestExpandBytesMax for the whole request.
func (r *entryRun) request(ctx context.Context) (*http.Request, error) {
	e := r.entry
	b := newBudget()
	raw, err := r.vars.expand(e.URL, b)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(raw, "/") {
		raw = r.vars["ingress"] + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("URL %q: want {{ingress}}/path, /path or an absolute URL", raw)
	}
	if len(e.Query) > 0 {
		q := u.Query()
		for _, f := range e.Query {
			val, err := r.vars.expand(f.Value, b)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", f.Line, err)
			}
			q.Add(f.Name, val)
		}
		u.RawQuery = q.Encode()
	}
	var body io.Reader
	contentType := ""
	switch {
	case e.Body != nil:
		b, err := r.vars.expand(*e.Body, b)
		if err != nil {
			return nil, err
		}
		body = strings.NewReader(b)
		if t := strings.TrimSpace(b); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
			contentType = "application/json"
		}
	case len(e.Form) > 0:
		form := url.Values{}
		for _, f := range e.Form {
			val, err := r.vars.expand(f.Value, b)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", f.Line, err)
			}
			form.Add(f.Name, val)
		}
		body = strings.NewReader(form.Encode())
		contentType = "application/x-www-form-urlencoded"
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, h := range e.Headers {
		val, err := r.vars.expand(h.Value, b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", h.Line, err)
		}
		if strings.EqualFold(h.Name, "Host") {
			req.Host = val
			continue
		}
		req.Header.Set(h.Name, val)
	}
	return req, nil
}
