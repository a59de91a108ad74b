package httplimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kube32/kube32/internal/testkit/testenv"
)

// smallBuffers gives every accepted connection small kernel buffers, so
// that what a client does not read stays in the spool rather than in the
// kernel.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// spoolServer serves, on a loopback port with small buffers, answers that
// write writes through a Spool of budget b, as a pod's callback does: put
// takes all of its bytes, waiting at most wait for room each time (it
// reports whether it waited, after calling onFull if set), and drops the
// client when that is up. It returns the server's address and the count of
// answers finished.
func spoolServer(t *testing.T, b *SpoolBudget, wait time.Duration, onFull func(), write func(r *http.Request, put func([]byte) (bool, error))) (string, *atomic.Int32) {
	t.Helper()
	finished := &atomic.Int32{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s Spool
		s.Init(w, r, r.URL.Query().Has("stream"))
		s.budget = b
		put := func(p []byte) (waited bool, err error) {
			for {
				n, err := s.Put(p)
				if err != nil {
					return waited, err
				}
				if p = p[n:]; len(p) == 0 {
					return waited, nil
				}
				waited = true
				if onFull != nil {
					onFull()
				}
				if err := s.WaitRoom(wait); err != nil {
					s.Abort(err)
					return waited, err
				}
			}
		}
		write(r, put)
		s.Finish()
		finished.Add(1)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewConns(64).NewServer(h, Limits{})
	go func() { _ = srv.Serve(smallBuffers{l}) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String(), finished
}

// testBudget is a budget of small limits whose files go to a folder of
// the test.
func testBudget(t *testing.T, lim SpoolLimits) *SpoolBudget {
	return &SpoolBudget{lim: lim, dir: t.TempDir()}
}

// openFiles counts the files of dir that the process holds open (a file
// removed from the folder included), on systems that show them in
// /proc/self/fd; -1 elsewhere.
func openFiles(t *testing.T, dir string) int {
	if runtime.GOOS != "linux" {
		return -1
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// checkReleased fails unless the budget is back to nothing and no file of
// its folder is left, open or not.
func checkReleased(t *testing.T, what string, b *SpoolBudget) {
	t.Helper()
	testenv.EventuallyNil(t, what+": the spool to give back its memory and file", func() error {
		if m, f := b.mem.Load(), b.file.Load(); m != 0 || f != 0 {
			return fmt.Errorf("the budget still counts %d bytes of memory and %d of files", m, f)
		}
		if n := openFiles(t, b.dir); n > 0 {
			return fmt.Errorf("%d temporary files are still open", n)
		}
		return nil
	})
	if left, _ := os.ReadDir(b.dir); len(left) > 0 {
		t.Fatalf("%s: %d files left in the folder", what, len(left))
	}
}

// rawGet sends GET path on a new connection and returns it, nothing of
// the answer read; a client that will not read gets a small receive
// buffer, so that the server's writes fill it soon.
func rawGet(t *testing.T, addr, path string, willRead bool) *net.TCPConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	tc := c.(*net.TCPConn)
	if !willRead {
		_ = tc.SetReadBuffer(4096)
	}
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path); err != nil {
		t.Fatal(err)
	}
	return tc
}

// An answer written faster than its client reads goes through memory,
// then the temporary file, then memory again, and arrives whole and in
// order; the writer waits only once both of the answer's limits are
// reached; the memory and the file are given back once it is sent.
func TestSpoolKeepsTheAnswerWholeAndInOrder(t *testing.T) {
	b := testBudget(t, SpoolLimits{Memory: 64 << 10, File: 1 << 20, MemoryNode: 1 << 20, FileNode: 4 << 20})
	answer := make([]byte, 8<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range answer {
		answer[i] = byte(rng.Uint32())
	}
	var sawFile, waited atomic.Bool
	addr, finished := spoolServer(t, b, 30*time.Second, nil, func(_ *http.Request, put func([]byte) (bool, error)) {
		rest := answer
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(100<<10))
			if b.file.Load() > 0 {
				sawFile.Store(true)
			}
			w, err := put(rest[:n])
			if err != nil {
				t.Errorf("put: %v", err)
				return
			}
			if w {
				waited.Store(true)
			}
			rest = rest[n:]
		}
	})
	conn := rawGet(t, addr, "/", true)
	time.Sleep(300 * time.Millisecond) // the spool fills meanwhile
	_ = conn.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(iotest{resp.Body})
	if err != nil || !bytes.Equal(got, answer) {
		t.Fatalf("the client read %d bytes (%v), not the %d bytes written in order", len(got), err, len(answer))
	}
	if !sawFile.Load() || !waited.Load() {
		t.Fatalf("the answer went to a file: %v; the writer waited for room: %v; want both", sawFile.Load(), waited.Load())
	}
	testenv.Eventually(t, "the handler to finish", func() bool { return finished.Load() == 1 })
	checkReleased(t, "after the answer", b)
}

// iotest reads at most 3000 bytes at a time, so that the client drains the
// spool more slowly than it is written.
type iotest struct{ r io.Reader }

func (r iotest) Read(p []byte) (int, error) { return r.r.Read(p[:min(len(p), 3000)]) }

// The temporary file is gone from its folder as soon as it is made, and
// closed, with the memory given back, on every path: a client that takes
// its answer, one that goes away without reading it, and one dropped for
// not reading.
func TestSpoolFreesItsMemoryAndFileOnEveryPath(t *testing.T) {
	b := testBudget(t, SpoolLimits{Memory: 64 << 10, File: 1 << 20, MemoryNode: 1 << 20, FileNode: 4 << 20})
	const size = 512 << 10 // memory and file, but within the limits
	hold := make(chan struct{})
	addr, finished := spoolServer(t, b, time.Second, nil, func(r *http.Request, put func([]byte) (bool, error)) {
		size := size
		if r.URL.Path == "/over" {
			size = 4 << 20 // past the answer's limits: the writer waits, then drops the client
		}
		if _, err := put(bytes.Repeat([]byte("x"), size)); err != nil && r.URL.Path != "/over" {
			t.Errorf("%s: put: %v", r.URL.Path, err)
		}
		if r.URL.Path == "/gone" {
			<-hold // the answer stays spooled until the client is gone
		}
	})
	whileHeld := func(path string) {
		t.Helper()
		testenv.EventuallyNil(t, path+": a temporary file, already out of its folder", func() error {
			if b.file.Load() == 0 {
				return errors.New("no file yet")
			}
			if left, _ := os.ReadDir(b.dir); len(left) > 0 {
				return fmt.Errorf("%d files in the folder", len(left))
			}
			if n := openFiles(t, b.dir); n == 0 {
				return errors.New("the file is not open")
			}
			return nil
		})
	}

	// Taken whole.
	c := rawGet(t, addr, "/done", true)
	whileHeld("/done")
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.Copy(io.Discard, resp.Body); n != size || err != nil {
		t.Fatalf("/done: %d bytes, %v", n, err)
	}
	checkReleased(t, "/done", b)

	// The client goes away: the sender's write fails.
	c = rawGet(t, addr, "/gone", false)
	whileHeld("/gone")
	c.Close()
	close(hold)
	checkReleased(t, "/gone", b)

	// The client does not read past the answer's limits: the writer's
	// wait runs out and it drops the client with a reset.
	c = rawGet(t, addr, "/over", false)
	whileHeld("/over")
	testenv.Eventually(t, "the three handlers to finish", func() bool { return finished.Load() == 3 })
	checkReleased(t, "/over", b)
	_ = c.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.Copy(io.Discard, c); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("/over: the dropped client read to %v, want a reset", err)
	}
}

// The node's budgets bound every answer together: past MemoryNode an
// answer goes to its file (keeping the one piece every answer may hold),
// past FileNode its writer waits for the client.
func TestSpoolNodeBudgetBoundsAllAnswers(t *testing.T) {
	b := testBudget(t, SpoolLimits{Memory: 1 << 20, File: 8 << 20, MemoryNode: 2 * pieceSize, FileNode: 1 << 20})
	type seen struct{ mem, file int64 }
	full := make(chan seen, 16)
	onFull := func() { full <- seen{b.mem.Load(), b.file.Load()} } // as a writer starts to wait
	addr, _ := spoolServer(t, b, 2*time.Second, onFull, func(_ *http.Request, put func([]byte) (bool, error)) {
		chunk := bytes.Repeat([]byte("y"), 64<<10)
		for range 8 << 20 / len(chunk) {
			if waited, err := put(chunk); waited || err != nil {
				return
			}
		}
		full <- seen{-1, -1}
	})
	for range 2 {
		rawGet(t, addr, "/", false)
	}
	for range 2 {
		select {
		case s := <-full:
			if s.mem < 0 {
				t.Fatal("an answer of 8 MiB never waited for its client, past a node budget of 1 MiB of files")
			}
			// Two answers: MemoryNode, and the first piece of the second.
			if s.mem > 3*pieceSize || s.file > 1<<20 || s.file < (1<<20)-(64<<10) {
				t.Fatalf("a writer waited with %d bytes of memory and %d of files spooled, want at most %d and about %d",
					s.mem, s.file, 3*pieceSize, 1<<20)
			}
		case <-time.After(time.Minute):
			t.Fatal("the writers did not fill the budget")
		}
	}
}

// Nothing is held back: an answer is sent while it is written, and an
// event stream write by write; a small answer is sent once whole, with
// the Content-Length net/http gives it.
func TestSpoolSendsAsItIsWritten(t *testing.T) {
	b := testBudget(t, SpoolLimits{Memory: 1 << 20, File: 1 << 20, MemoryNode: 1 << 20, FileNode: 1 << 20})
	received := make(chan struct{}, 4) // the client never waits for the handler
	addr, _ := spoolServer(t, b, 10*time.Second, nil, func(r *http.Request, put func([]byte) (bool, error)) {
		switch r.URL.Path {
		case "/small":
			_, _ = put([]byte("hello, "))
			_, _ = put([]byte("world\n"))
		case "/events":
			for i := range 3 {
				_, _ = put(fmt.Appendf(nil, "data: %d\n\n", i))
				select {
				case <-received:
				case <-time.After(10 * time.Second):
					t.Errorf("event %d was not sent while the answer was written", i)
					return
				}
			}
		case "/large":
			_, _ = put(bytes.Repeat([]byte("z"), 64<<10))
			select {
			case <-received:
			case <-time.After(10 * time.Second):
				t.Errorf("64 KiB were not sent while the answer was written")
			}
		}
	})
	c := dial(t, addr)
	resp, err := c.get(t, "/small")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "hello, world\n" || resp.ContentLength != int64(len(body)) {
		t.Fatalf("/small: %q, Content-Length %d", body, resp.ContentLength)
	}

	resp, err = c.get(t, "/events?stream")
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil || line != fmt.Sprintf("data: %d\n", i) {
			t.Fatalf("event %d: %q, %v", i, line, err)
		}
		_, _ = br.ReadString('\n')
		received <- struct{}{}
	}
	_, _ = io.Copy(io.Discard, br)

	resp, err = c.get(t, "/large")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 60<<10)); err != nil {
		t.Fatal(err)
	}
	received <- struct{}{}
	_, _ = io.Copy(io.Discard, resp.Body)
}
