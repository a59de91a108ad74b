package pod

import (
	"errors"
	"io/fs"
	"net/http"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/static"
	"github.com/tetratelabs/wazero/api"
)

// k32RespAsset: (path ptr, path_len u32, status u32) -> i32. Streams a file
// of the pod's image bundle as the whole response, from the fs.File to the
// client, never through guest memory (as the boards stream from flash).
// K32_ERR_NOENT sends nothing and keeps the queued headers, so the guest can
// still answer with a fallback.
var k32RespAsset = duringHandle(func(p *Pod, s *callState, mod api.Module, a []uint64) int64 {
	if s.headSent {
		return int64(abi.ErrInval)
	}
	name, ok := argString(mod, a, 0)
	if !ok {
		return int64(abi.ErrFault)
	}
	status := int(u32(a, 2))
	if status == 0 {
		status = http.StatusOK
	}
	if status < 100 || status > 599 || !static.ValidPath(name) {
		return int64(abi.ErrInval)
	}
	if p.cfg.Assets == nil {
		return int64(abi.ErrNoEnt)
	}
	if hc := p.hostCosts(); hc != nil {
		p.charge(hc.RespAsset.Fixed)
	}
	switch err := static.Serve(queuedWriter{p, s}, s.req, p.cfg.Assets, name, status); {
	case errors.Is(err, fs.ErrNotExist):
		return int64(abi.ErrNoEnt)
	case err != nil:
		return int64(abi.ErrIO)
	}
	return 0
})

// queuedWriter writes a response through the callback's queue: its headers
// are those queued by k32_resp_header, and the head goes out once. Each
// write costs what the board's card and network take for it.
type queuedWriter struct {
	p *Pod
	s *callState
}

func (q queuedWriter) Header() http.Header    { return q.s.header }
func (q queuedWriter) WriteHeader(status int) { q.p.onBoardClock(); q.s.sendHead(status) }

func (q queuedWriter) Write(b []byte) (int, error) {
	if hc := q.p.hostCosts(); hc != nil {
		q.p.charge(hc.RespAsset.PerByte * float64(len(b)))
	}
	q.p.onBoardClock()
	q.s.sendHead(0)
	return q.s.w.Write(b)
}
