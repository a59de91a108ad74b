package apptest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
)

// Env is where tests run.
type Env struct {
	// Ingress is the Ingress's base URL (no trailing /): {{ingress}}, and
	// the base of relative URLs.
	Ingress string
	// State is the cluster's objects, for the pod and event queries; nil
	// (a run against a bare address) fails them.
	State State
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

// client opens the SSE streams; it follows no redirect.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// transport sends the entries' requests as curl does under Hurl: no
// proxy, no Accept-Encoding unless [Options] compressed asks for it.
var transport = &http.Transport{
	DialContext:         (&net.Dialer{Timeout: requestTimeout}).DialContext,
	DisableCompression:  true,
	MaxIdleConnsPerHost: 4,
	TLSNextProto:        map[string]func(string, *tls.Conn) http.RoundTripper{},
}

// RunFile runs the entries of f in order. After a failed entry the rest
// of the file is skipped: their captures may be missing. The file's
// requests share a cookie jar, as Hurl's do.
func RunFile(ctx context.Context, env Env, f *File) []Result {
	if env.Wait == 0 {
		env.Wait = DefaultWait
	}
	v := vars{"ingress": strings.TrimSuffix(env.Ingress, "/")}
	jar, _ := cookiejar.New(nil)
	fr := &fileRun{env: env, file: f, vars: v, jar: jar}
	var results []Result
	finish := func(r Result) {
		r.Failures, r.Answer = fr.redact(r.Failures), fr.redactOne(r.Answer)
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
		run, skipped := fr.runEntry(ctx, e)
		r.Time = time.Since(start)
		if run.answer != nil {
			r.BoardTime, r.Board, _ = abi.ParseBoardTiming(run.answer.header.Values(abi.HeaderServerTiming))
		}
		r.Outcome = Pass
		switch {
		case skipped:
			r.Outcome, r.Note = Skip, "[Options] skip"
		case len(run.failures) > 0:
			r.Outcome, r.Failures, r.Answer, failed = Fail, run.failures, run.answerSummary(), true
		}
		finish(r)
	}
	return results
}

// fileRun is what a file's entries share.
type fileRun struct {
	env      Env
	file     *File
	vars     vars
	jar      http.CookieJar
	redacted []string // the values of captures marked redact
}

// runEntry runs an entry: its [Options] read, then its request and
// checks, repeated as repeat says, again while it fails and retry allows.
func (fr *fileRun) runEntry(ctx context.Context, e Entry) (*entryRun, bool) {
	run := fr.newRun(e)
	opts, err := fr.options(e)
	if err != nil {
		run.failf(err.line, "%v", err.err)
		return run, false
	}
	if opts.skip {
		return run, true
	}
	if !sleep(ctx, opts.delay) {
		return run, false
	}
	for i := 0; i < opts.repeat; i++ {
		for attempt := 0; ; attempt++ {
			run = fr.newRun(e)
			run.opts = opts
			run.do(ctx)
			if len(run.failures) == 0 || attempt >= opts.retry || !sleep(ctx, opts.retryInterval) {
				break
			}
		}
		if len(run.failures) > 0 {
			break
		}
	}
	return run, false
}

func (fr *fileRun) newRun(e Entry) *entryRun {
	return &entryRun{env: fr.env, file: fr.file.Path, dir: fr.file.Dir, entry: e, vars: fr.vars, jar: fr.jar, fr: fr}
}

// lineError is an error at a line of the file.
type lineError struct {
	line int
	err  error
}

// options reads an entry's [Options], their variables expanded; variable
// options set their variable for this entry and the next ones.
func (fr *fileRun) options(e Entry) (options, *lineError) {
	o := defaultOptions()
	for _, f := range e.Options {
		val, err := fr.vars.expand(f.Value, newBudget())
		if err != nil {
			return o, &lineError{f.Line, err}
		}
		if err := o.apply(f.Name, val); err != nil {
			return o, &lineError{f.Line, err}
		}
		switch f.Name {
		case "variable":
			name, value, _ := strings.Cut(val, "=")
			fr.vars[strings.TrimSpace(name)] = variableValue(value)
		case "variables-file":
			if err := fr.variablesFile(val); err != nil {
				return o, &lineError{f.Line, err}
			}
		}
	}
	return o, nil
}

// variablesFile sets the variables of a file of name=value lines (blank
// lines and # comments aside), relative to the test file's folder.
func (fr *fileRun) variablesFile(name string) error {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(fr.file.Dir, filepath.FromSlash(name))
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("variables-file: %v", err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || !variableName.MatchString(strings.TrimSpace(k)) {
			return fmt.Errorf("variables-file %s:%d: want name=value, got %q", name, i+1, line)
		}
		fr.vars[strings.TrimSpace(k)] = variableValue(v)
	}
	return nil
}

// sleep waits d, or until ctx ends: false then.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// redact hides the values of redacted captures in what is printed.
func (fr *fileRun) redact(lines []string) []string {
	for i := range lines {
		lines[i] = fr.redactOne(lines[i])
	}
	return lines
}

func (fr *fileRun) redactOne(s string) string {
	for _, v := range fr.redacted {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}

// entryRun is one entry's request, answer and checks.
type entryRun struct {
	env      Env
	file     string
	dir      string
	entry    Entry
	opts     options
	vars     vars
	jar      http.CookieJar
	fr       *fileRun
	streams  map[string]*stream
	answer   *answer
	failures []string
}

func (r *entryRun) failf(line int, format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf("%s:%d: %s", r.file, line, fmt.Sprintf(format, args...)))
}

// httpClient sends the entry's request: the file's cookies, redirects
// followed when [Options] location says so.
func (r *entryRun) httpClient(redirects *[]any) *http.Client {
	return &http.Client{Transport: transport, Jar: r.jar, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if !r.opts.location {
			return http.ErrUseLastResponse
		}
		if len(via) > r.opts.maxRedirs {
			return fmt.Errorf("more than %d redirects ([Options] max-redirs)", r.opts.maxRedirs)
		}
		status := int64(0)
		if req.Response != nil {
			status = int64(req.Response.StatusCode)
		}
		*redirects = append(*redirects, map[string]any{"location": req.URL.String(), "status": status})
		return nil
	}}
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
	timeout := requestTimeout
	if r.opts.maxTime > 0 {
		timeout = r.opts.maxTime
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var ip string
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if host, _, err := net.SplitHostPort(info.Conn.RemoteAddr().String()); err == nil {
			ip = host
		}
	}})
	start := time.Now()
	redirects := []any{}
	resp, err := r.httpClient(&redirects).Do(req.WithContext(ctx))
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
	r.answer = &answer{status: resp.StatusCode, proto: resp.Status, version: version(resp), header: resp.Header,
		raw: body, url: resp.Request.URL.String(), ip: ip, duration: time.Since(start), redirects: redirects}
	deadline := time.Now().Add(r.env.Wait)
	for _, c := range e.Captures {
		val, ok, err := r.eval(c.Query, deadline, newBudget())
		switch {
		case err != nil:
			r.failf(c.Line, "capture %s: %v", c.Name, err)
		case !ok:
			r.failf(c.Line, "capture %s: %s found nothing", c.Name, c.Query)
		default:
			r.vars[c.Name] = val
			if c.Redact && text(val) != "" {
				r.fr.redacted = append(r.fr.redacted, text(val))
			}
		}
	}
	for _, a := range e.Asserts {
		r.check(a, deadline)
	}
}

// version is the answer's HTTP version as Hurl's version query reads it:
// 1.0, 1.1, 2, 3.
func version(resp *http.Response) string {
	if resp.ProtoMajor >= 2 {
		return strconv.Itoa(resp.ProtoMajor)
	}
	return fmt.Sprintf("%d.%d", resp.ProtoMajor, resp.ProtoMinor)
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
		path, err := r.vars.expand(string(q.Args[0].(tmpl)), newBudget())
		if err != nil || r.streams[path] != nil {
			continue // an unknown variable fails the assert itself
		}
		target := path
		if strings.HasPrefix(path, "/") {
			target = text(r.vars["ingress"]) + path
		}
		r.streams[path] = openStream(ctx, client, path, target)
	}
}

// check runs one assert. The asserts of polled queries (pod, event) look
// again until they hold or the deadline passes: the cluster's state
// follows a request a moment later.
func (r *entryRun) check(a Assert, deadline time.Time) {
	b := newBudget() // the assert's predicate and query together
	want, err := r.readValue(a.Pred, b)
	if err != nil {
		r.failf(a.Line, "%s: %v", a.Text, err)
		return
	}
	for {
		left := *b // each look expands the query's arguments again
		val, ok, err := r.eval(a.Query, deadline, &left)
		if err != nil {
			r.failf(a.Line, "%s: %v", a.Text, err)
			return
		}
		if a.HeaderLine {
			if list, isList := val.([]any); isList && includes(list, want) {
				return
			}
		}
		if a.Pred.holds(val, ok, want) {
			return
		}
		if !kube32Queries[a.Query.Kind].polled || time.Now().After(deadline) {
			r.failf(a.Line, "expected %s %s, got %s%s", a.Query, r.expected(a.Pred, want), r.got(val, ok), r.waited(a.Query, ok))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// expected writes a predicate with its value as read.
func (r *entryRun) expected(p Predicate, want any) string {
	switch w := want.(type) {
	case jsonBody:
		want = w.doc
	case interface{ String() string }:
		want = w.String() // a regex
	}
	if !predicates[p.Op] {
		return p.String()
	}
	s := p.Op + " " + clip(show(want))
	if p.Not {
		s = "not " + s
	}
	return s
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
		path, _ := r.vars.expand(string(q.Args[0].(tmpl)), newBudget())
		if s := r.streams[path]; s != nil {
			return fmt.Sprintf(" (within %s; events on %s: %s)", r.env.Wait, path, s.names())
		}
	case kube32Queries[q.Kind].polled:
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
	return s + ", body " + clip(strconv.Quote(string(a.raw)))
}

// clip shortens what a message quotes.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + fmt.Sprintf("… (%d bytes)", len(s))
}
