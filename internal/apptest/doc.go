// Package apptest runs an app's test files, in a documented subset of
// Hurl's format (docs/testing.md), against a running cluster: kube32 test.
//
// parse.go reads a file into entries (a request, its expected answer,
// captures and asserts), query.go and predicate.go evaluate an assert,
// run.go sends the requests, sse.go and state.go answer kube32's own
// queries (an SSE stream's next event, a pod's restarts, an Event), and
// report.go and junit.go write the results.
package apptest
