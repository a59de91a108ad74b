package apptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
		val, ok, err := r.eval(c.Query, deadline, newBudget())
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
		path, err := r.vars.expand(q.Args[0], newBudget())
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
	b := newBudget() // the assert's predicate and query together
	pred, err := r.expandPredicate(a.Pred, b)
	if err != nil {
		r.failf(a.Line, "%v", err)
		return
	}
	for {
		left := *b // each look expands the query's arguments again
		val, ok, err := r.eval(a.Query, deadline, &left)
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

func (r *entryRun) expandPredicate(p Predicate, b *budget) (Predicate, error) {
	if s, ok := p.Value.(string); ok {
		v, err := r.vars.expand(s, b)
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
		path, _ := r.vars.expand(q.Args[0], newBudget())
		if s := r.streams[path]; s != nil {
			return fmt.Sprintf(" (within %s; events on %s: %s)", r.env.Wait, path, s.names())
		}
	case q.Kind == "pod", q.Kind == "event":
		return fmt.Sprintf(" (within %s)", r.env.Wait)
	}
	return ""
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
