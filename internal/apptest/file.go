package apptest

import "time"

// File is one parsed test file.
type File struct {
	Path    string // as given, for messages: tests/api.hurl
	Entries []Entry
}

// Entry is one request and what its answer must be.
type Entry struct {
	Line    int // of the request line
	Method  string
	URL     string // as written: {{ingress}}/x, or /x (relative to the Ingress)
	Headers []Field
	Query   []Field // [QueryStringParams]
	Form    []Field // [FormParams]
	Body    *string // nil: no body
	// Retry runs the entry again, up to Retry more times RetryInterval
	// apart, until its asserts hold ([Options] retry, retry-interval):
	// for a state that settles after the cluster is ready.
	Retry         int
	RetryInterval time.Duration
	// Captures and Asserts of the [Captures] and [Asserts] sections; the
	// status of the HTTP line and its header lines are asserts too.
	Captures []Capture
	Asserts  []Assert
}

// Field is a name: value line.
type Field struct {
	Line        int
	Name, Value string
}

// Query is what an assert or a capture looks at, with its filters.
type Query struct {
	Kind    string   // status, header, body, jsonpath, sse, pod, event
	Args    []string // the quoted arguments
	Filters []Filter
}

// Filter transforms a query's value: jsonpath "expr", count.
type Filter struct {
	Kind string
	Arg  string
}

// Predicate is the test applied to a query's value.
type Predicate struct {
	Not   bool
	Op    string // ==, !=, >, >=, <, <=, contains, startsWith, endsWith, matches, exists
	Value any    // string, float64, bool or nil (null); unused by exists
}

// Assert is one line of [Asserts] (or the HTTP line, or a header line).
type Assert struct {
	Line  int
	Text  string // the line as written, for messages
	Query Query
	Pred  Predicate
}

// Capture is one line of [Captures]: a variable set from the answer.
type Capture struct {
	Line  int
	Name  string
	Query Query
}
