package httplimit

import (
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kube32/kube32/abi"
)

// Spool is an answer on its way to a client that takes it more slowly than
// it is written (docs/serve.md, "Hostile clients"): what the client has not
// taken yet waits in memory, up to abi.RespBufferMemory, then in a
// temporary file, up to abi.RespBufferFile, so that the writer (a pod's
// callback) is done as soon as it has written, as nginx frees an upstream
// whose answer it buffers. Nothing is held back: once the answer passes
// net/http's own buffer (sendAfter), a goroutine sends it as it comes, each
// write within WriteStallTimeout, and an event stream is sent and flushed
// write by write. The writer waits only when both limits are reached (or
// the node's, SpoolLimits).
//
// A Spool is used by one writer (Put, WaitRoom, Abort) and then Finish,
// which sends the rest and frees its memory and file, on every path.
type Spool struct {
	w      http.ResponseWriter
	stall  Stall // the client's deadlines, under mu
	flush  bool
	budget *SpoolBudget

	mu sync.Mutex
	// pieces hold the answer's start in memory, in order: pieces[0][sent:]
	// goes next, writes go to the last.
	pieces [][]byte
	first  [1][]byte // pieces' first backing array
	sent   int
	mem    int64 // the capacity of pieces, counted in the budget
	// file holds the rest: its bytes fileRead to fileWrite go next, after
	// all of pieces; writes go to the file while it holds any, so that the
	// answer keeps its order. fileSize is its size in the budget.
	file                          *os.File
	fileName                      string // to remove at the end, when it could not be at once
	fileRead, fileWrite, fileSize int64
	noFile                        bool // no file could be made or written: memory only
	closed                        bool // the writer is done
	err                           error
	started                       bool          // the sender runs on a goroutine of its own
	wake, room                    chan struct{} // the sender's and the writer's signals
	done                          chan struct{} // closed when the sender returns
}

// pieceSize is the unit of an answer's memory, and the most one write to
// the client sends.
const pieceSize = 32 << 10

// sendAfter is how much of an answer waits for more before it is sent:
// what net/http's buffer of a connection holds anyway (bufio's 4 KiB), so
// that a small answer goes out in one write once complete and no answer
// starts later than without the spool.
const sendAfter = 4 << 10

// SpoolLimits bound the spools that share a budget.
type SpoolLimits struct {
	Memory, File         int64 // of one answer
	MemoryNode, FileNode int64 // of every answer together
}

// SpoolBudget counts what the spools of a process hold against their
// limits. Each answer may hold one piece of memory past MemoryNode, so that
// answers to clients that read are never held up by those that do not:
// the spools' memory is at most MemoryNode and 32 KiB per open connection
// (the connection budget, Conns, bounds those).
type SpoolBudget struct {
	lim       SpoolLimits
	dir       string // of the temporary files; "" is os.TempDir()
	mem, file atomic.Int64
}

// spools is the budget of the process's spools.
var spools = &SpoolBudget{lim: SpoolLimits{Memory: abi.RespBufferMemory, File: abi.RespBufferFile,
	MemoryNode: abi.RespBufferMemoryNode, FileNode: abi.RespBufferFileNode}}

// freePieces keeps pieces between answers rather than make them for each.
var freePieces = make(chan []byte, 64)

// errRoomTimeout is WaitRoom's error when its time is up.
var errRoomTimeout = errors.New("the client took none of the buffered answer in time")

// Init readies s, which must be unused or finished, to spool an answer to
// w, the ResponseWriter of r; flush sends each write at once (an event
// stream, IsEventStream).
func (s *Spool) Init(w http.ResponseWriter, r *http.Request, flush bool) {
	*s = Spool{w: w, flush: flush, budget: spools}
	s.stall.Init(w, r)
	s.pieces = s.first[:0]
}

// Put takes what fits of b without waiting, and reports how much; less
// than len(b) means the limits are reached: WaitRoom, then Put the rest.
// It fails once the client is gone (Abort, or a failed write).
func (s *Spool) Put(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	n := 0
	for n < len(b) {
		k := s.toMemory(b[n:])
		if k == 0 {
			k = s.toFile(b[n:])
		}
		if k == 0 {
			break
		}
		n += k
	}
	if !s.started && (s.flush || n < len(b) || s.pending() >= sendAfter) {
		s.started = true
		s.wake, s.room, s.done = make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{})
		go func() {
			defer close(s.done)
			s.send()
		}()
	}
	signal(s.wake)
	return n, nil
}

// WaitRoom waits until the sender has taken some of the answer, at most d.
// It fails when d passed first, or the client is gone.
func (s *Spool) WaitRoom(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.room:
	case <-t.C:
		return errRoomTimeout
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Abort drops the client with err: the write under way fails at once, the
// connection ends with a reset (ResetOnClose), and Put fails from now on.
func (s *Spool) Abort(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.stall.Drop()
	s.mu.Unlock()
	signal(s.wake)
}

// Finish sends the rest of the answer once the writer is done (waiting for
// the sender, or on the caller's goroutine when the answer is small), then
// frees the spool's memory and file, whether the client took it or not.
// net/http sends what its own buffer holds once the handler returns,
// within WriteStallTimeout.
func (s *Spool) Finish() {
	s.mu.Lock()
	s.closed = true
	started := s.started
	s.mu.Unlock()
	if started {
		signal(s.wake)
		<-s.done
	} else {
		s.send()
	}
	s.release()
	s.mu.Lock()
	s.stall.Lift(WriteStallTimeout)
	s.mu.Unlock()
}

// send writes the spool to the client until it is finished and empty, or
// a write fails.
func (s *Spool) send() {
	for {
		s.mu.Lock()
		for s.err == nil && !s.closed && !s.hasData() {
			s.mu.Unlock()
			<-s.wake
			s.mu.Lock()
		}
		if s.err != nil || !s.hasData() {
			s.mu.Unlock()
			return
		}
		var chunk []byte
		fromFile := s.sent == len(s.pieces[0]) // the memory is sent: the file is next
		if fromFile {
			// Into the first piece, which no write touches while the file
			// holds any of the answer.
			chunk = s.pieces[0][:min(int64(pieceSize), s.fileWrite-s.fileRead)]
		} else {
			chunk = s.pieces[0][s.sent:]
		}
		readAt := s.fileRead
		// Armed under the lock, so that Abort's Drop is never undone.
		s.stall.Arm(WriteStallTimeout)
		s.mu.Unlock()

		var err error
		if fromFile {
			_, err = s.file.ReadAt(chunk, readAt)
		}
		n := 0
		if err == nil {
			n, err = s.w.Write(chunk)
		}
		if err == nil && s.flush {
			err = s.stall.Flush()
		}

		s.mu.Lock()
		if fromFile {
			if s.fileRead += int64(n); s.fileRead == s.fileWrite {
				s.fileRead, s.fileWrite = 0, 0 // the file is empty: writes go to memory again
			}
		} else {
			s.sent += n
			s.popSent()
		}
		if err != nil {
			if s.err == nil {
				s.err = err
			}
			// The answer cannot be finished: what net/http would still
			// send fails at once, and the connection resets.
			s.stall.Drop()
		}
		s.mu.Unlock()
		signal(s.room)
		if err != nil {
			return
		}
	}
}

// hasData reports whether some of the answer waits to be sent.
func (s *Spool) hasData() bool {
	return len(s.pieces) > 0 && s.sent < len(s.pieces[0]) || s.fileWrite > s.fileRead
}

// pending is how much of the answer waits to be sent.
func (s *Spool) pending() int64 {
	n := s.fileWrite - s.fileRead - int64(s.sent)
	for _, p := range s.pieces {
		n += int64(len(p))
	}
	return n
}

// popSent frees the first piece once it is sent and full; the last piece
// stays, emptied, for the next writes.
func (s *Spool) popSent() {
	if s.sent < len(s.pieces[0]) {
		return
	}
	if len(s.pieces) == 1 {
		s.pieces[0], s.sent = s.pieces[0][:0], 0
		return
	}
	putPiece(s.pieces[0])
	s.mem -= pieceSize
	s.budget.mem.Add(-pieceSize)
	n := copy(s.pieces, s.pieces[1:])
	s.pieces[n] = nil
	s.pieces, s.sent = s.pieces[:n], 0
}

// toMemory copies what fits of b into the last piece, or a new one, and
// returns how much; none while the file holds some of the answer.
func (s *Spool) toMemory(b []byte) int {
	if s.fileWrite > s.fileRead {
		return 0
	}
	last := len(s.pieces) - 1
	if last < 0 || len(s.pieces[last]) == cap(s.pieces[last]) {
		if !s.grow() {
			return 0
		}
		last++
	}
	p := s.pieces[last]
	k := copy(p[len(p):cap(p)], b)
	s.pieces[last] = p[:len(p)+k]
	return k
}

// grow adds a piece within the answer's and the node's memory; the first
// is always given (SpoolBudget).
func (s *Spool) grow() bool {
	if len(s.pieces) > 0 {
		if s.mem+pieceSize > s.budget.lim.Memory || !take(&s.budget.mem, s.budget.lim.MemoryNode, pieceSize) {
			return false
		}
	} else {
		s.budget.mem.Add(pieceSize)
	}
	s.mem += pieceSize
	s.pieces = append(s.pieces, getPiece())
	return true
}

// toFile writes what fits of b to the file, made on first use, within the
// answer's and the node's limits, and returns how much.
func (s *Spool) toFile(b []byte) int {
	if s.noFile {
		return 0
	}
	if s.file == nil && !s.openFile() {
		return 0
	}
	if want := s.fileWrite + int64(len(b)) - s.fileSize; want > 0 {
		want = min(want, s.budget.lim.File-s.fileSize)
		s.fileSize += takeUpTo(&s.budget.file, s.budget.lim.FileNode, want)
	}
	k := min(int64(len(b)), s.fileSize-s.fileWrite)
	if k <= 0 {
		return 0
	}
	if _, err := s.file.WriteAt(b[:k], s.fileWrite); err != nil {
		s.noFile = true // a full disk: what the file took is still sent
		return 0
	}
	s.fileWrite += k
	return int(k)
}

// openFile makes the answer's temporary file, removed from its folder at
// once where the system allows it, so that no path leaves it behind.
func (s *Spool) openFile() bool {
	f, err := os.CreateTemp(s.budget.dir, "kube32-answer-*")
	if err != nil {
		s.noFile = true
		return false
	}
	if os.Remove(f.Name()) != nil {
		s.fileName = f.Name()
	}
	s.file = f
	return true
}

// release gives back the spool's memory and file.
func (s *Spool) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, p := range s.pieces {
		putPiece(p)
		s.pieces[i] = nil
	}
	s.pieces = s.pieces[:0]
	s.budget.mem.Add(-s.mem)
	s.mem = 0
	if s.file != nil {
		s.file.Close()
		if s.fileName != "" {
			os.Remove(s.fileName)
		}
		s.file = nil
		s.budget.file.Add(-s.fileSize)
		s.fileSize = 0
	}
}

// take counts n more in used if that stays within limit.
func take(used *atomic.Int64, limit, n int64) bool {
	return takeUpTo(used, limit, n) == n
}

// takeUpTo counts at most n more in used, within limit, and returns how
// much it counted.
func takeUpTo(used *atomic.Int64, limit, n int64) int64 {
	for {
		u := used.Load()
		k := min(n, limit-u)
		if k <= 0 {
			return 0
		}
		if used.CompareAndSwap(u, u+k) {
			return k
		}
	}
}

func getPiece() []byte {
	select {
	case p := <-freePieces:
		return p[:0]
	default:
		return make([]byte, 0, pieceSize)
	}
}

func putPiece(p []byte) {
	select {
	case freePieces <- p[:0]:
	default:
	}
}

// signal wakes whoever waits on c, if anyone does, without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// IsEventStream reports whether h is the header of a server-sent event
// stream, which is sent write by write.
func IsEventStream(h http.Header) bool {
	ct, _, _ := strings.Cut(h.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "text/event-stream")
}
