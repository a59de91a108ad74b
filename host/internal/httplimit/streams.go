package httplimit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/kube32/kube32/host/internal/httperror"
)

// StreamKind says who may open a stream, which decides the budgets it
// counts in.
type StreamKind int

const (
	// APIStream is a stream of the API server, behind the cluster token
	// when there is one: a watch, a followed log, a port-forward, the web
	// view's events, the nodes' channel follower and relayed connections.
	// It counts in the stream class only.
	APIStream StreamKind = iota
	// PublicStream is a stream anyone may open: an Ingress's event
	// stream. It counts in the stream class, in PublicStreamsPercent of
	// the budget and in its client address's MaxPublicStreamsPerClient.
	PublicStream
)

// Stream moves the connection of r, a request about to stream its answer
// for as long as the client stays, from the short class to the stream
// class of its budget until the request ends. Every stream handler of
// every listener calls it before it answers. It returns a *Refused when
// the stream class, or for a public stream the public share or the
// client's, is full: the connection then stays short, and the caller
// answers the refusal (Refuse) instead of streaming. A request of a
// server without a budget (not made by NewServer) counts nowhere.
func Stream(r *http.Request, kind StreamKind) error {
	tc, _ := r.Context().Value(connKey{}).(*conn)
	if tc == nil {
		return nil
	}
	return tc.owner.beginStream(tc, kind)
}

// Refused is a stream refused for want of room: Code is 503 when the
// stream class or its public share is full, 429 when the client holds its
// share of public streams.
type Refused struct {
	Code   int
	Reason string
}

func (e *Refused) Error() string { return e.Reason }

// SetRetryAfter sets the Retry-After of a refused stream on h.
func (e *Refused) SetRetryAfter(h http.Header) {
	h.Set("Retry-After", strconv.Itoa(int(StreamRetryAfter/time.Second)))
}

// Refuse answers a refused stream (an error of Stream) with the JSON error
// of a pod's request paths (host/internal/httperror) and its Retry-After.
func Refuse(w http.ResponseWriter, err error) {
	ref, ok := err.(*Refused)
	if !ok {
		ref = &Refused{Code: http.StatusServiceUnavailable, Reason: err.Error()}
	}
	ref.SetRetryAfter(w.Header())
	httperror.Write(w, ref.Code, map[string]string{"error": "stream refused", "reason": ref.Reason})
}

// MaxStreams and MaxPublicStreams are the bounds of the stream class and
// of its public streams.
func (c *Conns) MaxStreams() int       { return c.maxStreams }
func (c *Conns) MaxPublicStreams() int { return c.maxPublic }

// Streams is how many connections are in the stream class now, and how
// many of them are public streams.
func (c *Conns) Streams() (all, public int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams, c.public
}

func (c *Conns) beginStream(tc *conn, kind StreamKind) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc.stream || tc.closed {
		return nil
	}
	var client string
	if kind == PublicStream {
		client = Client(tc.RemoteAddr().String())
		if c.perClient[client] >= MaxPublicStreamsPerClient {
			return &Refused{Code: http.StatusTooManyRequests, Reason: fmt.Sprintf(
				"client %s holds %d event streams, the most one client address may hold at once; try again later", client, MaxPublicStreamsPerClient)}
		}
		if c.public >= c.maxPublic {
			return &Refused{Code: http.StatusServiceUnavailable, Reason: fmt.Sprintf(
				"the node holds %d public event streams, the most it keeps room for (%d%% of its %d connections); try again later",
				c.public, PublicStreamsPercent, c.max)}
		}
	}
	if c.streams >= c.maxStreams {
		return &Refused{Code: http.StatusServiceUnavailable, Reason: fmt.Sprintf(
			"the node holds %d streams, the most it keeps room for (its %d connections less %d%% kept for short requests); try again later",
			c.streams, c.max, ShortReservePercent)}
	}
	c.streams++
	tc.stream = true
	if kind == PublicStream {
		c.public++
		c.perClient[client]++
		tc.public, tc.client = true, client
	}
	return nil
}

// endStream moves tc back to the short class when its request ends.
func (c *Conns) endStream(tc *conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endStreamLocked(tc)
}

func (c *Conns) endStreamLocked(tc *conn) {
	if !tc.stream {
		return
	}
	tc.stream = false
	c.streams--
	if tc.public {
		c.public--
		if c.perClient[tc.client]--; c.perClient[tc.client] == 0 {
			delete(c.perClient, tc.client)
		}
		tc.public, tc.client = false, ""
	}
}

// connKey is the context key of a request's *conn.
type connKey struct{}

// withConn is the servers' ConnContext: it keeps the budgeted connection
// in the context of its requests, for Stream.
func withConn(ctx context.Context, nc net.Conn) context.Context {
	if tc, ok := nc.(*conn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

// endStreams moves a request's connection back to the short class when
// the request ends, so that a kept-alive connection whose watch ended
// serves short requests again.
func endStreams(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if tc, ok := r.Context().Value(connKey{}).(*conn); ok {
				tc.owner.endStream(tc)
			}
		}()
		h.ServeHTTP(w, r)
	})
}
