// Package apptest runs an app's test files, in a documented subset of
// Hurl's format (docs/testing.md), against a running cluster: kube32 test.
//
// parse.go (with lex.go, query.go and predicate.go) reads a file into
// entries: a request, its expected answer, captures and asserts. run.go
// runs them, request.go builds each request, eval.go reads a query's value
// (jsonpath.go the JSON ones; sse.go an SSE stream's next event; state.go
// a pod's restarts or an Event), and report.go and junit.go write the
// results.
package apptest
