package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
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
		raw = text(r.vars["ingress"]) + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("URL %q: want {{ingress}}/path, /path or an absolute URL", raw)
	}
	if len(e.Query) > 0 {
		q, err := r.encodeFields(e.Query, b)
		if err != nil {
			return nil, err
		}
		if u.RawQuery != "" {
			q = u.RawQuery + "&" + q
		}
		u.RawQuery = q
	}
	body, contentType, err := r.requestBody(b)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for _, h := range r.opts.headers {
		req.Header.Add(h[0], h[1])
	}
	for _, h := range e.Headers {
		name, err := r.vars.expand(h.Name, b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", h.Line, err)
		}
		val, err := r.vars.expand(h.Value, b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", h.Line, err)
		}
		if strings.EqualFold(name, "Host") {
			req.Host = val
			continue
		}
		req.Header.Add(name, val)
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, c := range e.Cookies {
		val, err := r.vars.expand(c.Value, b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", c.Line, err)
		}
		req.AddCookie(&http.Cookie{Name: c.Name, Value: val, Quoted: false})
	}
	if e.BasicAuth != nil {
		user, err := r.vars.expand(e.BasicAuth.Name, b)
		if err != nil {
			return nil, err
		}
		pass, err := r.vars.expand(e.BasicAuth.Value, b)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", e.BasicAuth.Line, err)
		}
		req.SetBasicAuth(user, pass)
	} else if user, pass, ok := strings.Cut(r.opts.user, ":"); ok {
		req.SetBasicAuth(user, pass)
	}
	if r.opts.compressed && req.Header.Get("Accept-Encoding") == "" {
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
	}
	return req, nil
}

// encodeFields writes name=value pairs, in order, URL-encoded.
func (r *entryRun) encodeFields(fields []Field, b *budget) (string, error) {
	var pairs []string
	for _, f := range fields {
		name, err := r.vars.expand(f.Name, b)
		if err != nil {
			return "", fmt.Errorf("line %d: %v", f.Line, err)
		}
		val, err := r.vars.expand(f.Value, b)
		if err != nil {
			return "", fmt.Errorf("line %d: %v", f.Line, err)
		}
		pairs = append(pairs, url.QueryEscape(name)+"="+url.QueryEscape(val))
	}
	return strings.Join(pairs, "&"), nil
}

// requestBody is the request's body and the Content-Type it implies.
func (r *entryRun) requestBody(b *budget) ([]byte, string, error) {
	e := r.entry
	switch {
	case e.Body != nil:
		body, err := r.bodyBytes(*e.Body, b)
		if err != nil {
			return nil, "", err
		}
		switch {
		case e.Body.Kind == "json", e.Body.Kind == "graphql", e.Body.Hint == "json":
			return body, "application/json", nil
		case e.Body.Kind == "xml", e.Body.Hint == "xml":
			return body, "application/xml", nil
		}
		return body, "", nil
	case len(e.Form) > 0:
		form, err := r.encodeFields(e.Form, b)
		return []byte(form), "application/x-www-form-urlencoded", err
	case len(e.Multipart) > 0:
		return r.multipartBody(b)
	}
	return nil, "", nil
}

// bodyBytes is a body as sent (or as an answer must be): its variables
// expanded, a file read, a GraphQL query wrapped in JSON.
func (r *entryRun) bodyBytes(body Body, b *budget) ([]byte, error) {
	switch body.Kind {
	case "bytes":
		return body.Bytes, b.take(len(body.Bytes), "", 0)
	case "file":
		return r.readFile(body.Line, body.File)
	}
	s := body.Text
	if !body.NoVars {
		var err error
		if s, err = r.vars.expand(s, b); err != nil {
			return nil, err
		}
	}
	if body.Kind == "graphql" {
		return graphQL(s)
	}
	return []byte(s), nil
}

// graphQL wraps a query, and the variables { … } that may end it, as
// GraphQL over HTTP posts them.
func graphQL(s string) ([]byte, error) {
	doc := map[string]any{"query": s}
	if i := strings.LastIndex(s, "\nvariables"); i >= 0 {
		rest := strings.TrimSpace(s[i+len("\nvariables"):])
		if strings.HasPrefix(rest, "{") {
			v, err := decodeJSON([]byte(rest))
			if err != nil {
				return nil, fmt.Errorf("the GraphQL variables are not JSON: %v", err)
			}
			doc["query"], doc["variables"] = s[:i+1], v
		}
	}
	return json.Marshal(doc)
}

// readFile reads a file,…; of the test file, relative to its folder.
func (r *entryRun) readFile(line int, name string) ([]byte, error) {
	name, err := r.vars.expand(name, newBudget())
	if err != nil {
		return nil, fmt.Errorf("line %d: file,%s;: %v", line, name, err)
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, filepath.FromSlash(name))
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("line %d: file,%s;: %v", line, name, err)
	}
	return data, nil
}

// multipartBody writes [MultipartFormData]'s fields and files.
func (r *entryRun) multipartBody(b *budget) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range r.entry.Multipart {
		name, err := r.vars.expand(p.Name, b)
		if err != nil {
			return nil, "", fmt.Errorf("line %d: %v", p.Line, err)
		}
		if p.File == "" {
			val, err := r.vars.expand(p.Value, b)
			if err != nil {
				return nil, "", fmt.Errorf("line %d: %v", p.Line, err)
			}
			w.WriteField(name, val)
			continue
		}
		data, err := r.readFile(p.Line, p.File)
		if err != nil {
			return nil, "", err
		}
		ct := p.ContentType
		if ct == "" {
			if ct = mime.TypeByExtension(filepath.Ext(p.File)); ct == "" {
				ct = "application/octet-stream"
			}
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quoteEscaper.Replace(name), quoteEscaper.Replace(filepath.Base(p.File))))
		h.Set("Content-Type", ct)
		part, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		part.Write(data)
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")
