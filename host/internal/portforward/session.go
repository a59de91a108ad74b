// Package portforward serves a port-forward session, the portforward.k8s.io
// protocol that kubectl port-forward speaks to the API server and
// kube-apiserver to a kubelet (docs/kubectl.md, docs/kubeletapi.md): SPDY
// streams in pairs, each pair one TCP connection to a port of the pod,
// served as an HTTP connection by the pod's handler. The API server
// (host/internal/apiserver) and a kube32 node's kubelet API
// (host/internal/kubeletapi) both serve it.
package portforward

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/streaming/pkg/httpstream"
)

// Session is one port-forward session: the streams of one SPDY
// connection, paired by request ID as the kubelet pairs them. Each pair is
// one TCP connection of the client to a port of the pod: its data stream
// carries the bytes, and its error stream, closed empty when all went
// well, the reason when not. A pod answers HTTP and nothing else, so a data
// stream is served as an HTTP connection by the session's http.Server,
// whose handler is the pod's.
type Session struct {
	pod     *corev1.Pod
	streams chan httpstream.Stream
	done    chan struct{}
	conns   *streamListener
	server  *http.Server
}

// New returns the session of a connection to p, whose requests reach
// pod; p's container ports are the ports a client may forward.
func New(p *corev1.Pod, pod http.Handler) *Session {
	return &Session{
		pod:     p,
		streams: make(chan httpstream.Stream),
		done:    make(chan struct{}),
		conns:   &streamListener{conns: make(chan net.Conn), done: make(chan struct{})},
		server:  &http.Server{Handler: fromClient(pod)},
	}
}

// NewStream hands a stream the client opened to Run; it is the
// httpstream.NewStreamHandler of the session's connection, called on its
// reading goroutine.
func (f *Session) NewStream(st httpstream.Stream, _ <-chan struct{}) error {
	select {
	case f.streams <- st:
		return nil
	case <-f.done:
		return fmt.Errorf("the port-forward session of pod %s/%s is over", f.pod.Namespace, f.pod.Name)
	}
}

// streamPair is what the client opens for one connection.
type streamPair struct{ data, err httpstream.Stream }

// Run pairs the streams of conn until the client goes, then closes every
// connection of the session.
func (f *Session) Run(conn httpstream.Connection) {
	defer conn.Close()
	defer close(f.done)
	go func() { _ = f.server.Serve(f.conns) }()
	defer f.server.Close()
	pairs := map[string]*streamPair{}
	for {
		select {
		case <-conn.CloseChan():
			return
		case st := <-f.streams:
			id := st.Headers().Get(corev1.PortForwardRequestIDHeader)
			pair := pairs[id]
			if pair == nil {
				pair = &streamPair{}
				pairs[id] = pair
			}
			switch st.Headers().Get(corev1.StreamType) {
			case corev1.StreamTypeError:
				pair.err = st
			case corev1.StreamTypeData:
				pair.data = st
			default:
				_ = st.Reset()
				continue
			}
			if pair.data != nil && pair.err != nil {
				delete(pairs, id)
				go f.forward(conn, pair)
			}
		}
	}
}

// forward serves one pair: a port the container declares reaches the pod,
// any other is refused on the error stream, in the kubelet's words.
func (f *Session) forward(conn httpstream.Connection, pair *streamPair) {
	defer conn.RemoveStreams(pair.data, pair.err)
	defer pair.err.Close()
	portHeader := pair.data.Headers().Get(corev1.PortHeader)
	if problem := f.checkPort(portHeader); problem != "" {
		fmt.Fprintf(pair.err, "error forwarding port %s to pod %s/%s, uid %s: %s", portHeader, f.pod.Namespace, f.pod.Name, f.pod.UID, problem)
		pair.data.Close()
		return
	}
	c := &streamConn{Stream: pair.data, local: addr(net.JoinHostPort(f.pod.Status.PodIP, portHeader)), closed: make(chan struct{})}
	select {
	case f.conns.conns <- c:
		<-c.closed
	case <-f.done:
		c.Close()
	}
}

// checkPort says what is wrong with a requested port, "" when the
// container declares it.
func (f *Session) checkPort(header string) string {
	port, err := strconv.ParseUint(header, 10, 16)
	if err != nil || port == 0 {
		return fmt.Sprintf("invalid port %q", header)
	}
	var declared []string
	for _, c := range f.pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.ContainerPort == int32(port) && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
				return ""
			}
			declared = append(declared, strconv.Itoa(int(p.ContainerPort)))
		}
	}
	if len(declared) == 0 {
		return fmt.Sprintf("the pod's container declares no port (spec.containers[].ports), so port %d reaches nothing", port)
	}
	slices.Sort(declared)
	return fmt.Sprintf("the pod's container does not declare port %d (it declares %s): a wasm pod listens on its declared ports only",
		port, strings.Join(slices.Compact(declared), ", "))
}

// streamListener hands the session's data streams to its http.Server.
type streamListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *streamListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *streamListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *streamListener) Addr() net.Addr { return addr("port-forward") }

// streamConn is a data stream as the net.Conn an http.Server serves.
// Closing it half-closes the stream, as the kubelet does when the pod's
// side of the connection ends; deadlines do not apply.
type streamConn struct {
	httpstream.Stream
	local  addr
	once   sync.Once
	closed chan struct{}
}

func (c *streamConn) Close() error {
	var err error
	c.once.Do(func() {
		err = c.Stream.Close()
		close(c.closed)
	})
	return err
}

func (c *streamConn) LocalAddr() net.Addr                { return c.local }
func (c *streamConn) RemoteAddr() net.Addr               { return addr("127.0.0.1:0") }
func (c *streamConn) SetDeadline(t time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(t time.Time) error { return nil }

// addr is a net.Addr of a stream.
type addr string

func (a addr) Network() string { return "tcp" }
func (a addr) String() string  { return string(a) }
