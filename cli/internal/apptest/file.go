package apptest

// File is one parsed test file.
type File struct {
	Path string // as given, for messages: tests/api.hurl
	// Dir is the folder that file,…; paths are relative to: the file's
	// own (Load sets it; Parse takes the folder of Path).
	Dir     string
	Entries []Entry
}

// Entry is one request and what its answer must be.
type Entry struct {
	Line      int // of the request line
	Method    string
	URL       string  // as written: {{ingress}}/x, or /x (relative to the Ingress)
	Headers   []Field // names and values may hold {{variables}}
	Query     []Field // [QueryStringParams]
	Form      []Field // [FormParams]
	Multipart []Part  // [MultipartFormData]
	Cookies   []Field // [Cookies]
	BasicAuth *Field  // [BasicAuth]: user: password
	Body      *Body   // nil: no body
	// Options are the [Options] lines, in order; their values may hold
	// {{variables}}, so they are read again when the entry runs.
	Options []Field
	// Captures and Asserts of the [Captures] and [Asserts] sections; the
	// HTTP line's version and status, its header lines and the answer's
	// body are asserts too.
	Captures []Capture
	Asserts  []Assert
}

// Field is a name: value line.
type Field struct {
	Line        int
	Name, Value string
}

// Part is one line of [MultipartFormData]: a field, or a file when File
// is set (name: file,path; type).
type Part struct {
	Field
	File, ContentType string
}

// Body is a request's or an answer's body, in one of Hurl's forms.
type Body struct {
	Line int
	// Kind: json, xml, text (`…` or ```…```), graphql, bytes (hex,…;
	// base64,…; ```hex or ```base64), file (file,…;).
	Kind   string
	Text   string // json, xml, text, graphql: {{variables}} expand unless NoVars
	Bytes  []byte // bytes
	File   string // file: relative to the test file's folder
	Hint   string // a ```json or ```xml string's type: its Content-Type
	NoVars bool   // ```novariable
}

// Query is what an assert or a capture looks at, with its filters.
type Query struct {
	Kind    string // status, header, body, jsonpath, … (query.go)
	Args    []any  // tmpl ("quoted", expanded when run), regexRef, or a bare word (string)
	Filters []Filter
}

// Filter transforms a query's value: jsonpath "$.a", count, nth 2, …
type Filter struct {
	Kind string
	Args []any // strings (tmpl), regexRef or int64, as filters.go says
}

// Predicate is the test applied to a query's value.
type Predicate struct {
	Not   bool
	Op    string // ==, !=, >, contains, includes, isInteger, … (predicate.go)
	Value any    // a value (value.go), or a tmpl, fileRef, regexRef or varRef to read when the assert runs
}

// Assert is one line of [Asserts] (or the HTTP line, a header line, the
// answer's body).
type Assert struct {
	Line  int
	Text  string // the line as written, for messages
	Query Query
	Pred  Predicate
	// HeaderLine: a Name: value line under the HTTP line, which holds
	// when one of the header's values is the value.
	HeaderLine bool
}

// Capture is one line of [Captures]: a variable set from the answer.
type Capture struct {
	Line   int
	Name   string
	Query  Query
	Redact bool // redact: its value is never printed
}
