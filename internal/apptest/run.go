package apptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Env is where tests run.
type Env struct {
	// Ingress is the Ingress's base URL (no trailing /): {{ingress}}, and
	// the base of relative URLs.
	Ingress string
	State   Lister // the cluster's objects, for the pod and event queries
	// Wait bounds how long an sse, pod or event assert waits for its
	// event or state; 0 = DefaultWait.
	Wait time.Duration
	// Done, when set, is called with each entry's result as it ends, so
	// that a long file's lines come as they run.
	Done func(Result)
}

// DefaultWait is how long sse, pod and event asserts wait by default.
const DefaultWait = 10 * time.Second

// requestTimeout bounds one request, answer included.
const requestTimeout = 30 * time.Second

// maxBody is the most of an answer's body kept for asserts.
const maxBody = 16 << 20

// client follows no redirect, as Hurl by default: a test asserts the 3xx.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// RunFile runs the entries of f in order. After a failed entry the rest
// of the file is skipped: their captures may be missing.
func RunFile(ctx context.Context, env Env, f *File) []Result {
	if env.Wait == 0 {
		env.Wait = DefaultWait
	}
	v := vars{"ingress": strings.TrimSuffix(env.Ingress, "/")}
	var results []Result
	finish := func(r Result) {
		results = append(results, r)
		if env.Done != nil {
			env.Done(r)
		}
	}
	failed := false
	for _, e := range f.Entries {
		r := Result{File: f.Path, Line: e.Line, Name: e.Method + " " + strings.TrimPrefix(e.URL, "{{ingress}}")}
		if failed || ctx.Err() != nil {
			r.Outcome = Skip
			finish(r)
			continue
		}
		start := time.Now()
		run := runEntry(ctx, env, f.Path, e, v)
		r.Time = time.Since(start)
		r.Failures = run.failures
		r.Outcome = Pass
		if len(r.Failures) > 0 {
			r.Outcome, r.Answer, failed = Fail, run.answerSummary(), true
		}
		finish(r)
	}
	return results
}

// runEntry runs an entry, again while it fails and its [Options] retry
// allows.
func runEntry(ctx context.Context, env Env, file string, e Entry, v vars) *entryRun {
	interval := e.RetryInterval
	if interval == 0 {
		interval = defaultRetryInterval
	}
	for attempt := 0; ; attempt++ {
		run := &entryRun{env: env, file: file, entry: e, vars: v}
		run.do(ctx)
		if len(run.failures) == 0 || attempt >= e.Retry {
			return run
		}
		select {
		case <-ctx.Done():
			return run
		case <-time.After(interval):
		}
	}
}

// defaultRetryInterval is Hurl's.
const defaultRetryInterval = time.Second

// entryRun is one entry's request, answer and checks.
type entryRun struct {
	env      Env
	file     string
	entry    Entry
	vars     vars
	streams  map[string]*stream
	answer   *answer
	failures []string
}

type answer struct {
	status int
	proto  string
	header http.Header
	body   []byte
}

func (r *entryRun) failf(line int, format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf("%s:%d: %s", r.file, line, fmt.Sprintf(format, args...)))
}

func (r *entryRun) do(ctx context.Context) {
	e := r.entry
	req, err := r.request(ctx)
	if err != nil {
		r.failf(e.Line, "%v", err)
		return
	}
	r.openStreams(ctx)
	defer func() {
		for _, s := range r.streams {
			s.close()
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		r.failf(e.Line, "%s %s: no answer: %v", e.Method, req.URL, err)
		return
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		r.failf(e.Line, "%s %s: reading the answer: %v", e.Method, req.URL, err)
		return
	}
	r.answer = &answer{status: resp.StatusCode, proto: resp.Status, header: resp.Header, body: body}
	deadline := time.Now().Add(r.env.Wait)
	for _, c := range e.Captures {
		val, ok, err := r.eval(c.Query, deadline)
		switch {
		case err != nil:
			r.failf(c.Line, "capture %s: %v", c.Name, err)
		case !ok:
			r.failf(c.Line, "capture %s: %s found nothing", c.Name, c.Query)
		default:
			r.vars[c.Name] = text(val)
		}
	}
	for _, a := range e.Asserts {
		r.check(a, deadline)
	}
}

// request builds the entry's request, its variables expanded.
func (r *entryRun) request(ctx context.Context) (*http.Request, error) {
	e := r.entry
	raw, err := r.vars.expand(e.URL)
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
			val, err := r.vars.expand(f.Value)
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
		b, err := r.vars.expand(*e.Body)
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
			val, err := r.vars.expand(f.Value)
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
		val, err := r.vars.expand(h.Value)
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

// openStreams opens the SSE streams the entry's sse queries read, before
// its request is sent.
func (r *entryRun) openStreams(ctx context.Context) {
	r.streams = map[string]*stream{}
	queries := make([]Query, 0, len(r.entry.Asserts)+len(r.entry.Captures))
	for _, a := range r.entry.Asserts {
		queries = append(queries, a.Query)
	}
	for _, c := range r.entry.Captures {
		queries = append(queries, c.Query)
	}
	for _, q := range queries {
		if q.Kind != "sse" {
			continue
		}
		path, err := r.vars.expand(q.Args[0])
		if err != nil || r.streams[path] != nil {
			continue // an unknown variable fails the assert itself
		}
		target := path
		if strings.HasPrefix(path, "/") {
			target = r.vars["ingress"] + path
		}
		r.streams[path] = openStream(ctx, client, path, target)
	}
}

// check runs one assert. sse, pod and event asserts look again until they
// hold or the deadline passes: the cluster's state follows a request a
// moment later.
func (r *entryRun) check(a Assert, deadline time.Time) {
	pred, err := r.expandPredicate(a.Pred)
	if err != nil {
		r.failf(a.Line, "%v", err)
		return
	}
	for {
		val, ok, err := r.eval(a.Query, deadline)
		if err != nil {
			r.failf(a.Line, "%s: %v", a.Text, err)
			return
		}
		if pred.holds(val, ok) {
			return
		}
		polled := a.Query.Kind == "pod" || a.Query.Kind == "event"
		if !polled || time.Now().After(deadline) {
			r.failf(a.Line, "expected %s %s, got %s%s", a.Query, pred, r.got(val, ok), r.waited(a.Query, ok))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *entryRun) expandPredicate(p Predicate) (Predicate, error) {
	if s, ok := p.Value.(string); ok {
		v, err := r.vars.expand(s)
		if err != nil {
			return p, err
		}
		p.Value = v
	}
	return p, nil
}

// got says what a query found, for a failure's message.
func (r *entryRun) got(v any, ok bool) string {
	if !ok {
		return "nothing"
	}
	return clip(show(v))
}

// waited says how long a waiting query waited, and what an sse stream
// carried meanwhile when the event never came.
func (r *entryRun) waited(q Query, found bool) string {
	switch {
	case q.Kind == "sse" && !found:
		path, _ := r.vars.expand(q.Args[0])
		if s := r.streams[path]; s != nil {
			return fmt.Sprintf(" (within %s; events on %s: %s)", r.env.Wait, path, s.names())
		}
	case q.Kind == "pod", q.Kind == "event":
		return fmt.Sprintf(" (within %s)", r.env.Wait)
	}
	return ""
}

// eval returns a query's value, after its filters, and whether it found
// one.
func (r *entryRun) eval(q Query, deadline time.Time) (any, bool, error) {
	args := make([]string, len(q.Args))
	for i, a := range q.Args {
		v, err := r.vars.expand(a)
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

// answerSummary is the answer in one line: status, Content-Type, body.
func (r *entryRun) answerSummary() string {
	if r.answer == nil {
		return ""
	}
	a := r.answer
	s := a.proto
	if ct := a.header.Get("Content-Type"); ct != "" {
		s += ", Content-Type " + ct
	}
	return s + ", body " + clip(strconv.Quote(string(a.body)))
}

// clip shortens what a message quotes.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("… (%d bytes)", len(s))
}
