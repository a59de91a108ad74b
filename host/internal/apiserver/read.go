package apiserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/store"
)

// serveResource dispatches one request on a resource by method.
func (s *Server) serveResource(w http.ResponseWriter, r *http.Request, req request) {
	var err error
	switch {
	case req.res.Review:
		err = s.serveReview(w, r, req)
	case r.Method == http.MethodGet && req.subresource == "log":
		err = s.serveLogs(w, r, req)
	case r.Method == http.MethodGet && req.name == "" && isWatch(r):
		err = s.serveWatch(w, r, req)
	case r.Method == http.MethodGet && req.name == "":
		err = s.serveList(w, r, req)
	case r.Method == http.MethodGet:
		err = s.serveGet(w, r, req)
	case req.res.Computed:
		err = methodNotAllowed(req.res, verbOf(r.Method, req.name))
	case r.Method == http.MethodPost && req.name == "" && req.subresource == "":
		err = s.serveCreate(w, r, req)
	case r.Method == http.MethodPut && req.name != "":
		err = s.serveUpdate(w, r, req)
	case r.Method == http.MethodPatch && req.name != "":
		err = s.servePatch(w, r, req)
	case r.Method == http.MethodDelete && req.name != "" && req.subresource == "":
		err = s.serveDelete(w, r, req)
	default:
		err = methodNotAllowed(req.res, verbOf(r.Method, req.name))
	}
	if err != nil {
		writeStatus(w, err)
	}
}

func verbOf(method, name string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return method
}

func isWatch(r *http.Request) bool {
	v := r.URL.Query().Get("watch")
	return v == "true" || v == "1"
}

// key is the store key of a named request.
func (req request) key() store.Key {
	return store.Key{Kind: req.res.Kind, Namespace: req.namespace, Name: req.name}
}

// objects lists a resource's objects in namespace ("" for all) and the
// resourceVersion they are at; computed resources are computed now, by
// their strategy.
func (s *Server) objects(res *resource, namespace string) ([]runtime.Object, int64) {
	if res.Computed {
		version := s.cfg.Store.Version()
		return res.Compute(admission.Sources{Store: s.cfg.Store, NodeStats: s.nodeStats}, namespace, version), version
	}
	// Read-only use (filtering, encoding): the store's own objects will do.
	return s.cfg.Store.ListShared(res.Kind, namespace)
}

// get returns one object of a request, or NotFound.
func (s *Server) get(req request) (runtime.Object, error) {
	if req.res.Computed {
		objs, _ := s.objects(req.res, req.namespace)
		for _, o := range objs {
			if o.(metav1.Object).GetName() == req.name {
				return o, nil
			}
		}
		return nil, apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	obj, ok := s.cfg.Store.Get(req.key())
	if !ok {
		return nil, apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	return obj, nil
}

func (s *Server) serveGet(w http.ResponseWriter, r *http.Request, req request) error {
	obj, err := s.get(req)
	if err != nil {
		return err
	}
	if wantsTable(r) {
		return s.writeTable(w, req.res, []runtime.Object{obj}, 0, tableOptions{include: includeObject(r), single: true, withColumns: true})
	}
	writeJSON(w, http.StatusOK, obj)
	return nil
}

// writeTable answers objs as a Table.
func (s *Server) writeTable(w http.ResponseWriter, res *resource, objs []runtime.Object, version int64, opts tableOptions) error {
	buf := bufferPool.Get().(*[]byte)
	defer bufferPool.Put(buf)
	b, err := s.appendTable((*buf)[:0], res, objs, version, opts)
	if err != nil {
		return err
	}
	*buf = append(b, '\n')
	writeRaw(w, http.StatusOK, *buf)
	return nil
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request, req request) error {
	match, err := selectorsOf(r, req.res)
	if err != nil {
		return err
	}
	opts, err := versionOptionsOf(r, false)
	if err != nil {
		return err
	}
	objs, version := s.objects(req.res, req.namespace)
	if err := listVersionError(opts, version); err != nil {
		return err
	}
	items := make([]runtime.Object, 0, len(objs))
	for _, o := range objs {
		if match(o) {
			items = append(items, o)
		}
	}
	if wantsTable(r) {
		return s.writeTable(w, req.res, items, version, tableOptions{include: includeObject(r), withColumns: true})
	}
	buf := bufferPool.Get().(*[]byte)
	defer bufferPool.Put(buf)
	b, err := s.appendList((*buf)[:0], req.res, items, version)
	if err != nil {
		return err
	}
	*buf = b
	writeRaw(w, http.StatusOK, b)
	return nil
}

// readBodyAs reads a request body that the API port's rule lets the
// server read as b (apiauth.CheckBody): else kube-apiserver's 415.
func readBodyAs(r *http.Request, b apiauth.Body) ([]byte, error) {
	if err := apiauth.CheckBody(r, b); err != nil {
		return nil, err
	}
	return readBody(r)
}

// readBody reads a request body of at most 3 MiB, kube-apiserver's limit.
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, 3<<20))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the body is larger than %d bytes", tooBig.Limit))
	}
	if err != nil {
		return nil, badRequest("reading the body: %v", err)
	}
	return data, nil
}
