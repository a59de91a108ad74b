package call

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/nodehop"
	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/service"
)

// A call to a pod on another node whose node cannot be reached is
// K32_ERR_IO; "no answer within timeout_ms gives K32_ERR_TIMEOUT"
// (docs/calls.md), the deadline being the connection's; a method that
// cannot travel is K32_ERR_INVAL.
func TestRemoteCallErrnos(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	defer close(release)
	r := &Remote{Pool: nodehop.NewPool()}
	call := pod.Call{From: "default/a", Chain: []string{"default/a"}, Method: "GET", RespCap: 10}
	_, err = r.Do(context.Background(), service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: down}, callTarget(t, "http://svc/"), call)
	wantErrno(t, err, abi.ErrIO)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	addr := strings.TrimPrefix(silent.URL, "http://")
	_, err = r.Do(ctx, service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: addr}, callTarget(t, "http://svc/"), call)
	wantErrno(t, err, abi.ErrTimeout)

	call.Method = "GE T"
	_, err = r.Do(context.Background(), service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: addr}, callTarget(t, "http://svc/"), call)
	wantErrno(t, err, abi.ErrInval)
}

// Sequential calls to a node share one kept-alive connection, whether the
// answer's length is known or it is chunked.
func TestRemoteCallsShareOneConnection(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("chunked") != "" {
			io.WriteString(w, "part,")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "end")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	r := &Remote{Pool: nodehop.NewPool()}
	b := service.Backend{Namespace: "default", Name: "far", Node: "n2", Addr: strings.TrimPrefix(srv.URL, "http://")}
	for _, target := range []string{"http://svc/", "http://svc/?chunked=1", "http://svc/", "http://svc/?chunked=1"} {
		res, err := r.Do(context.Background(), b, callTarget(t, target), pod.Call{From: "default/a", Method: "GET", RespCap: 100})
		if err != nil || res.Status != 200 || !strings.HasSuffix(string(res.Body), "end") {
			t.Fatalf("%s: %+v %v", target, res, err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 4 calls, want 1", n)
	}
}
