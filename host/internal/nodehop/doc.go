// Package nodehop is the client side of every request a node sends to a
// pod on another node's pod HTTP server: the Ingress's requests to pods on
// workers (docs/nodes.md) and cross-node k32_http_call (docs/calls.md).
//
// A Pool keeps idle keep-alive connections per node address. Pool.Do
// writes a request's head and its in-memory body in one write, reads the
// answer's head with net/http's own parser (http.ReadResponse) and hands
// the answer back with its body to read: nothing runs beside the caller's
// goroutine, and the context's end reaches the connection as a deadline.
// The connection goes back to the pool once its answer has been read to
// the end; any other outcome closes it.
package nodehop
