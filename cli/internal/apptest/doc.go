// Package apptest runs an app's test files, in Hurl's format
// (docs/testing.md), against a running cluster: kube32 test.
//
// parse.go (with lex.go, body.go, options.go, query.go, filter.go and
// predicate.go) reads a file into entries: a request, its expected
// answer, captures and asserts. run.go runs them, request.go builds each
// request, answer.go holds what came back, eval.go reads a query's value
// (jsonpath.go the JSON ones; sse.go an SSE stream's next event; state.go
// a pod's restarts or an Event), value.go holds Hurl's value types and
// their comparisons, and report.go and junit.go write the results.
package apptest
