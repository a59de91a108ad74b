// Package httplimit bounds what a client may hold of a node's HTTP
// servers: a connection costs one slot of a budget that every listener of
// the process shares, idle keep-alive connections give theirs up first,
// streams (watches, event streams) hold only their class's part of it
// (Stream), and a request's head, body and idle time are bounded.
// ReadBody reads a request's whole body before a pod sees it, and a Spool
// holds a pod's answer while its client takes it, so that a slow client
// costs a goroutine, a socket and buffer space, never a pod's one callback
// slot.
//
// The numbers are the simulator's own (docs/serve.md); the boards have
// theirs.
package httplimit

import "time"

// The simulator's limits of one request and one connection.
const (
	// MaxBody is the largest request body a pod is handed; a larger one
	// is answered 413.
	MaxBody = 1 << 20
	// HeaderTimeout bounds the wait for a request's head.
	HeaderTimeout = 10 * time.Second
	// BodyTimeout bounds the wait for a request's whole body once its head
	// has arrived; past it ReadBody answers 408.
	BodyTimeout = 30 * time.Second
	// IdleTimeout closes a keep-alive connection that carries no request
	// this long. It is longer than the idle timeout of the nodes' own
	// client pools (90 s), so that a pool never sends on a connection the
	// server is closing.
	IdleTimeout = 120 * time.Second
	// MaxHeaderBytes bounds a request's head (its lines and fields) on
	// every port, net/http's default; a larger head is answered 431.
	MaxHeaderBytes = 1 << 20
	// MaxConnsDefault is the most connections open at once when the
	// file-descriptor limit allows it (see DefaultMaxConns).
	MaxConnsDefault = 4096
)

// The simulator's connection classes (docs/serve.md "Hostile clients"): a
// connection is short until its request becomes a stream (Stream), and
// streams never take the part of the budget kept for short requests. The
// numbers are shares of the budget, which follows the open-file limit;
// a client sees only 503 or 429 with Retry-After, plain HTTP, so they are
// the simulator's and not the ABI's (the boards size their own).
const (
	// ShortReservePercent of the connection budget is kept for short
	// requests: streams of every kind hold at most the rest.
	ShortReservePercent = 25
	// PublicStreamsPercent of the budget at most are public streams, the
	// ones anyone may open without the cluster token (the Ingress's event
	// streams), so that the API's watches, followed logs and the nodes'
	// own streams keep the rest of the stream class.
	PublicStreamsPercent = 50
	// MaxPublicStreamsPerClient is how many public streams one client
	// address (an IPv4 address, an IPv6 /64) holds at once.
	MaxPublicStreamsPerClient = 64
	// StreamRetryAfter is the Retry-After of a refused stream.
	StreamRetryAfter = 5 * time.Second
)

// Limits are a server's timeouts; a zero field takes the constant of the
// same name.
type Limits struct {
	HeaderTimeout, BodyTimeout, IdleTimeout time.Duration
}

func (l Limits) orDefaults() Limits {
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = HeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = BodyTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = IdleTimeout
	}
	return l
}

// The simulator's limit of a client that does not read what it asked for.
const (
	// WriteStallTimeout is how long a client may take to accept one write
	// of a pod's answer (at most 32 KiB), from a Spool or from the Ingress
	// proxying a worker's pod; past it the client is dropped with a reset
	// (docs/serve.md).
	WriteStallTimeout = 10 * time.Second
)
