package nodehop

import (
	"bufio"
	"context"
	"net"
	"sync"
	"syscall"
	"time"
)

// The limits of a Pool.
const (
	// IdlePerNode is how many idle connections a pool keeps to one node:
	// as many as requests in flight to it under a load test (wrk -c32 and
	// well beyond), so that a burst finds its connections open instead of
	// dialling and closing one per request. The pod servers close idle
	// connections first when their connection budget runs short
	// (host/internal/httplimit).
	IdlePerNode = 256
	// IdleTotal bounds the idle connections to all nodes together.
	IdleTotal = 4 * IdlePerNode
	// IdleTimeout closes a connection idle that long: shorter than the pod
	// servers' own idle timeout (docs/serve.md, "Hostile clients"), so a
	// connection is rarely taken just as its server closes it.
	IdleTimeout = 90 * time.Second
	// DialTimeout bounds connecting to a node.
	DialTimeout = 5 * time.Second
	// keepAlivePeriod is the TCP keep-alive of the connections, which
	// finds a node that went away without closing them.
	keepAlivePeriod = 30 * time.Second
	// readBufferSize is each connection's read buffer, as net/http's
	// client has.
	readBufferSize = 4 << 10
)

// Pool is a pool of keep-alive connections to the pod servers of nodes.
// The zero Pool is not ready: use NewPool.
type Pool struct {
	dialer net.Dialer

	mu       sync.Mutex
	idle     map[string][]*conn // per node address, the longest idle first
	count    int                // idle connections over all nodes
	sweeping bool               // a sweep is due
}

// Shared is the pool of the process: the Ingress and the calls of every
// node in it share their connections to each node.
var Shared = NewPool()

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{
		dialer: net.Dialer{Timeout: DialTimeout, KeepAlive: keepAlivePeriod},
		idle:   make(map[string][]*conn),
	}
}

// conn is one connection to a node, with its read buffer.
type conn struct {
	net.Conn
	addr      string
	br        *bufio.Reader
	raw       syscall.RawConn // for closedWhileIdle; nil when the connection has none
	idleSince time.Time
	deadline  bool // a deadline is set on it
}

// get returns a connection to addr: the most recently used idle one that
// its node has not closed, unless fresh, else a new one. reused tells
// which. Every idle connection is looked at (one system call): one whose
// node was killed a moment ago is found here, before the request is
// written, so that the request goes to another pod.
func (p *Pool) get(ctx context.Context, addr string, fresh bool) (c *conn, reused bool, err error) {
	for !fresh {
		c = p.takeIdle(addr)
		if c == nil {
			break
		}
		if !c.closedWhileIdle() {
			return c, true, nil
		}
		c.Close()
	}
	nc, err := p.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	c = &conn{Conn: nc, addr: addr, br: bufio.NewReaderSize(nc, readBufferSize)}
	if sc, ok := nc.(syscall.Conn); ok {
		c.raw, _ = sc.SyscallConn()
	}
	return c, false, nil
}

// takeIdle takes the most recently used idle connection to addr, or nil.
func (p *Pool) takeIdle(addr string) *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[addr]
	n := len(list)
	if n == 0 {
		return nil
	}
	c := list[n-1]
	list[n-1] = nil
	p.idle[addr] = list[:n-1]
	p.count--
	return c
}

// put keeps c idle for the next request to its node, or closes it when
// the pool is full.
func (p *Pool) put(c *conn) {
	c.idleSince = time.Now()
	p.mu.Lock()
	list := p.idle[c.addr]
	if len(list) >= IdlePerNode || p.count >= IdleTotal {
		p.mu.Unlock()
		c.Close()
		return
	}
	p.idle[c.addr] = append(list, c)
	p.count++
	if !p.sweeping {
		p.sweeping = true
		time.AfterFunc(IdleTimeout, p.sweep)
	}
	p.mu.Unlock()
}

// sweep closes the connections idle for IdleTimeout, and comes back when
// the next of the others would be.
func (p *Pool) sweep() {
	now := time.Now()
	var stale []*conn
	p.mu.Lock()
	var next time.Time
	for addr, list := range p.idle {
		i := 0
		for i < len(list) && now.Sub(list[i].idleSince) >= IdleTimeout {
			i++
		}
		stale = append(stale, list[:i]...)
		if i == len(list) {
			delete(p.idle, addr)
			continue
		}
		p.idle[addr] = append(list[:0], list[i:]...)
		clear(list[len(list)-i:])
		if oldest := list[0].idleSince; next.IsZero() || oldest.Before(next) {
			next = oldest
		}
	}
	p.count -= len(stale)
	p.sweeping = p.count > 0
	if p.sweeping {
		time.AfterFunc(next.Add(IdleTimeout).Sub(now), p.sweep)
	}
	p.mu.Unlock()
	for _, c := range stale {
		c.Close()
	}
}

// CloseIdle closes the pool's idle connections.
func (p *Pool) CloseIdle() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.count = make(map[string][]*conn), 0
	p.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.Close()
		}
	}
}
