package k32

import "io"

// serveRequest runs the pod's Handler for the request of the current
// k32_handle callback. Its result is that of k32_handle: 0 lets the host send
// what was queued; a negative value makes it send 500 when nothing went out
// yet and log the failure.
func serveRequest() int32 {
	w := &response{header: make(Header)}
	r, err := readRequest()
	if err != nil {
		Log(LevelError, "k32: reading the request: "+err.Error())
		return int32(err.(Errno))
	}
	if !protect("serving "+r.Method+" "+r.Path, func() {
		if handler == nil {
			NotFound(w, r)
			return
		}
		handler.ServeK32(w, r)
	}) {
		if !w.sent {
			// The head is still ours: make it a 500 rather than whatever
			// the handler had chosen before it panicked.
			k32RespStatus(500)
		}
		return callbackFailed
	}
	w.finish()
	return 0
}

// readRequest fetches the request line and header of the current callback
// from the host. The header comes in one call: a struct field cannot be read
// lazily, and net/http's shape (r.Header.Get) is worth one host call.
func readRequest() (*Request, error) {
	method, err := getString(k32ReqMethod, 16)
	if err != nil {
		return nil, err
	}
	path, err := getString(k32ReqPath, 128)
	if err != nil {
		return nil, err
	}
	query, err := getString(k32ReqQuery, 128)
	if err != nil && err != ErrNoEnt {
		return nil, err
	}
	lines, err := getString(k32ReqHeaders, 1024)
	if err != nil && err != ErrNoEnt {
		return nil, err
	}
	return &Request{
		Method:   method,
		Path:     path,
		RawQuery: query,
		Header:   parseHeaderLines(lines),
		Body:     &bodyReader{},
	}, nil
}

// bodyReader reads the request body with k32_req_read.
type bodyReader struct{ eof bool }

// Read implements io.Reader.
func (b *bodyReader) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := k32ReqRead(bytesPtr(p), uint32(len(p)))
	switch {
	case n < 0:
		return 0, Errno(n)
	case n == 0:
		b.eof = true
		return 0, io.EOF
	case int(n) > len(p):
		// The host must not claim more than it copied; treat it as a fault
		// rather than slicing past p.
		return 0, ErrFault
	}
	return int(n), nil
}

// response is the ResponseWriter of one k32_handle callback. The host queues
// status and header until the first k32_resp_write sends the head.
type response struct {
	header  Header
	queued  map[string]int // how many values of each key the host holds already
	headSet bool           // the status is handed to the host
	sent    bool           // the head went out: the status can no longer change
}

// Header implements ResponseWriter.
func (w *response) Header() Header { return w.header }

// WriteHeader implements ResponseWriter.
func (w *response) WriteHeader(code int) {
	if w.headSet {
		return // as net/http: only the first call counts
	}
	w.headSet = true
	w.queueHeader()
	if ret := k32RespStatus(uint32(code)); ret < 0 {
		Log(LevelWarn, "k32: response status "+itoa(code)+" refused: "+Errno(ret).Error())
	}
}

// queueHeader hands the host the header values it does not hold yet. A
// ServeAsset that found no file leaves its header queued; the response that
// follows must not repeat it.
func (w *response) queueHeader() {
	for name, values := range w.header {
		done := w.queued[name]
		if done > len(values) {
			done = len(values) // the handler replaced the values since
		}
		for _, v := range values[done:] {
			if ret := k32RespHeader(stringPtr(name), uint32(len(name)), stringPtr(v), uint32(len(v))); ret < 0 {
				Log(LevelWarn, "k32: response header "+name+" dropped: "+Errno(ret).Error())
			}
		}
		if w.queued == nil {
			w.queued = make(map[string]int)
		}
		w.queued[name] = len(values)
	}
}

// Write implements ResponseWriter.
func (w *response) Write(p []byte) (int, error) {
	if !w.headSet {
		w.WriteHeader(200)
	}
	w.sent = true
	written := 0
	for {
		n := k32RespWrite(bytesPtr(p[written:]), uint32(len(p)-written))
		if n < 0 {
			return written, Errno(n)
		}
		written += int(n)
		if written >= len(p) || n == 0 {
			break
		}
	}
	if written < len(p) {
		return written, io.ErrShortWrite
	}
	return written, nil
}

// finish hands a header the handler set but never sent to the host, so a
// handler that only sets headers (a redirect's Location) still sends them.
func (w *response) finish() {
	if !w.headSet {
		w.WriteHeader(200)
	}
}

// ServeAsset sends the file at path of the pod's image bundle as the whole
// response, with the status code (0 means 200), through k32_resp_asset. It
// returns ErrNoEnt, having sent nothing, when the bundle has no such file, so
// the handler can still answer otherwise. Header fields set on w before the
// call go out with the file. A wrapper around the handler's ResponseWriter
// should offer Unwrap() ResponseWriter (as for http.ResponseController) so
// ServeAsset finds the header to send.
func ServeAsset(w ResponseWriter, path string, code int) error {
	if code == 0 {
		code = 200
	}
	rw := unwrapResponse(w)
	if rw != nil {
		if rw.sent {
			return ErrInval // the head went out already
		}
		rw.queueHeader()
	}
	ret := k32RespAsset(stringPtr(path), uint32(len(path)), uint32(code))
	if ret < 0 {
		return Errno(ret)
	}
	if rw != nil {
		rw.headSet, rw.sent = true, true
	}
	return nil
}

// unwrapResponse finds the SDK's own response under wrappers, or nil.
func unwrapResponse(w ResponseWriter) *response {
	for i := 0; i < 16 && w != nil; i++ {
		switch v := w.(type) {
		case *response:
			return v
		case interface{ Unwrap() ResponseWriter }:
			w = v.Unwrap()
		default:
			return nil
		}
	}
	return nil
}
