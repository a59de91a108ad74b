package examples_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testpods"
	"github.com/kube32/kube32/internal/testkit/testserve"
)

// examples/egress: the boards' reference NetworkPolicy example
// (docs/networkpolicy.md, "Example"). The probe reaches a host on TCP port
// 8000 (a local server; another free port stands in for 8000 when it is
// taken, and the copied policy says so) and nothing else: a call to another
// port returns K32_ERR_PERM, and serve logs [NETPOL].
func TestEgress(t *testing.T) {
	testenv.Tool(t, "clang")
	dir := copyExamples(t, "egress")
	allowed := listenHost(t, "127.0.0.1:8000")
	if _, port, _ := net.SplitHostPort(allowed.Addr().String()); port != "8000" {
		policy := filepath.Join(dir, "egress-policy.yaml")
		b, err := os.ReadFile(policy)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(policy, []byte(strings.Replace(string(b), "port: 8000", "port: "+port, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	other := listenHost(t, "127.0.0.1:0")
	build(t, dir)
	c, out := testserve.Serve(t, dir)

	probe := func(l net.Listener) string {
		t.Helper()
		status, _, body := fetch(t, http.MethodPost, c.IngressURL()+"/probe", "http://"+l.Addr().String()+"/")
		if status != http.StatusOK {
			t.Fatalf("POST /probe: %d %q", status, body)
		}
		return body
	}
	if got := probe(allowed); got != "rc=200\nhost\n" {
		t.Errorf("the allowed port: %q, want rc=200 and the host's answer", got)
	}
	if got, want := probe(other), "rc="+testpods.Code(abi.ErrPerm)+"\n"; got != want {
		t.Errorf("another port: %q, want %q (%v)", got, want, abi.ErrPerm)
	}
	want := "[default/egress-probe] [NETPOL] default/egress-probe -> " + other.Addr().String() + " denied: "
	if !strings.Contains(out.String(), want) {
		t.Errorf("serve's output lacks %q:\n%s", want, out)
	}
}

// listenHost serves "host\n" on addr, or on a free port of 127.0.0.1 when
// addr is taken, until the test ends.
func listenHost(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "host") })}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l
}
