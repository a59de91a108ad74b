package activity

import (
	"time"
	"unicode/utf8"
)

// The kinds of Event.
const (
	KindRequest = "request" // the Ingress answered a request
	KindCall    = "call"    // a pod's k32_http_call returned
	KindMessage = "message" // a message was published on a channel topic
	KindViewers = "viewers" // a viewer joined or left an Ingress event stream
)

// Event is one thing that happened. Which fields are set depends on Kind;
// the JSON names are what the web view reads.
type Event struct {
	Seq  uint64    `json:"seq"` // the stream's order, from 1
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`

	// A request: Method, Host, Path, Status, Duration; Route the Ingress
	// rule that matched it ("<namespace>/<ingress> <host><path> <pathType>",
	// "" when none did); Pod and Node the backend that answered it.
	Method   string  `json:"method,omitempty"`
	Host     string  `json:"host,omitempty"`
	Path     string  `json:"path,omitempty"`
	Status   int     `json:"status,omitempty"`
	Duration float64 `json:"durationMs,omitempty"` // milliseconds
	Route    string  `json:"route,omitempty"`
	Pod      string  `json:"pod,omitempty"` // "<namespace>/<name>"
	Node     string  `json:"node,omitempty"`

	// A call: From (the calling pod, also a message's publisher), Target
	// (the URL it called), Result (the HTTP status, or the K32_ERR_* name
	// the pod got), Reason (why NetworkPolicy denied it, or the error).
	From   string `json:"from,omitempty"`
	Target string `json:"target,omitempty"`
	Result string `json:"result,omitempty"`
	Denied bool   `json:"denied,omitempty"`
	Reason string `json:"reason,omitempty"`

	// A message: Topic, Size in bytes and the start of its data.
	Topic   string `json:"topic,omitempty"`
	Size    int    `json:"size,omitempty"`
	Preview string `json:"preview,omitempty"`

	// Viewers: Stream the Ingress event stream ("<namespace>/<ingress>
	// <path>"), Topic its topics, Viewers how many clients it has now.
	Stream  string `json:"stream,omitempty"`
	Viewers int    `json:"viewers"`
}

// previewLen bounds Event.Preview, in bytes.
const previewLen = 120

// Preview is the start of data as text for Event.Preview: at most
// previewLen bytes, cut at a rune boundary, "…" when cut; binary data is
// described, not copied.
func Preview(data []byte) string {
	if len(data) > previewLen {
		cut := previewLen
		for cut > 0 && !utf8.RuneStart(data[cut]) {
			cut--
		}
		if !utf8.Valid(data[:cut]) {
			return "(binary)"
		}
		return string(data[:cut]) + "…"
	}
	if !utf8.Valid(data) {
		return "(binary)"
	}
	return string(data)
}
