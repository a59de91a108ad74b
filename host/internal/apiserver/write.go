package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"sigs.k8s.io/yaml"

	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/kinds"
	"github.com/kube32/kube32/host/internal/store"
)

func (s *Server) serveCreate(w http.ResponseWriter, r *http.Request, req request) error {
	manager, err := managerName(r)
	if err != nil {
		return err
	}
	obj, meta, err := readObject(w, r, req)
	if err != nil {
		return err
	}
	if meta.GetName() == "" && meta.GetGenerateName() != "" {
		meta.SetName(meta.GetGenerateName() + utilrand.String(5))
	}
	return s.create(w, r, req, obj, func(obj runtime.Object) (runtime.Object, error) {
		live, err := newObject(req, meta.GetName())
		if err != nil {
			return nil, err
		}
		return recordUpdate(req, manager, live, obj)
	})
}

// create admits and stores a new object; record, when set, records its
// managed fields once admitted (server-side apply has recorded them).
func (s *Server) create(w http.ResponseWriter, r *http.Request, req request, obj runtime.Object, record func(runtime.Object) (runtime.Object, error)) error {
	meta := obj.(metav1.Object)
	if err := s.namespaceExists(req.res, meta.GetNamespace()); err != nil {
		return err
	}
	meta.SetResourceVersion("")
	meta.SetDeletionTimestamp(nil)
	resetStatus(req.res, obj)
	if err := admit(req.res, obj); err != nil {
		return err
	}
	if record != nil {
		var err error
		if obj, err = record(obj); err != nil {
			return err
		}
	}
	if dryRun(r) {
		warn(w, obj)
		writeJSON(w, http.StatusCreated, obj)
		return nil
	}
	created, err := s.cfg.Store.Create(obj)
	if err != nil {
		return storeError(req.res, meta.GetName(), err)
	}
	warn(w, created)
	writeJSON(w, http.StatusCreated, created)
	return nil
}

// readObject reads and decodes the body of a create or an update.
func readObject(w http.ResponseWriter, r *http.Request, req request) (runtime.Object, metav1.Object, error) {
	data, err := readBodyAs(r, apiauth.ObjectBody)
	if err != nil {
		return nil, nil, err
	}
	obj, err := decodeFor(w, r, req, data)
	if err != nil {
		return nil, nil, err
	}
	return obj, obj.(metav1.Object), nil
}

func dryRun(r *http.Request) bool { return len(r.URL.Query()["dryRun"]) > 0 }

// namespaceExists answers NotFound for an object of a namespace that does
// not exist, as kube-apiserver's NamespaceLifecycle admission does.
func (s *Server) namespaceExists(res *resource, namespace string) error {
	if !res.Namespaced {
		return nil
	}
	if _, ok := s.cfg.Store.Get(store.Key{Kind: kinds.Namespace, Name: namespace}); !ok {
		return apierrors.NewNotFound(byKind(kinds.Namespace).groupResource(), namespace)
	}
	return nil
}

func (s *Server) serveUpdate(w http.ResponseWriter, r *http.Request, req request) error {
	obj, meta, err := readObject(w, r, req)
	if err != nil {
		return err
	}
	if meta.GetName() != req.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", meta.GetName(), req.name)
	}
	return s.replace(w, r, req, func(runtime.Object) (runtime.Object, error) { return obj, nil }, recordAsUpdate)
}

// fieldRecording says how replace records the managed fields of a write.
type fieldRecording int

const (
	// recordAsUpdate: the request's manager comes to own what it changed.
	recordAsUpdate fieldRecording = iota
	// recordedByApply: next is a server-side apply, which recorded them.
	recordedByApply
)

// replace writes what next makes of the current object: the update,
// patch and apply verbs share it. A resourceVersion in the new object must
// be the current one (409 otherwise); the main resource keeps the current
// status, the status subresource changes nothing but the status.
func (s *Server) replace(w http.ResponseWriter, r *http.Request, req request, next func(cur runtime.Object) (runtime.Object, error), record fieldRecording) error {
	manager, err := managerName(r)
	if err != nil {
		return err
	}
	change := func(cur runtime.Object) (runtime.Object, error) {
		obj, err := next(cur.DeepCopyObject())
		if err != nil {
			return nil, err
		}
		curMeta, meta := cur.(metav1.Object), obj.(metav1.Object)
		if meta.GetName() != req.name || meta.GetNamespace() != req.namespace {
			return nil, badRequest("metadata.name and metadata.namespace cannot change (%s/%s)", req.namespace, req.name)
		}
		if rv := meta.GetResourceVersion(); rv != "" && rv != curMeta.GetResourceVersion() {
			return nil, apierrors.NewConflict(req.res.groupResource(), req.name, errors.New(store.ErrConflict.Error()))
		}
		if uid := meta.GetUID(); uid != "" && uid != curMeta.GetUID() {
			return nil, apierrors.NewConflict(req.res.groupResource(), req.name,
				preconditionFailed("UID in precondition: %s, UID in object meta: %s", uid, curMeta.GetUID()))
		}
		if req.subresource == "status" {
			out := cur.DeepCopyObject()
			copyStatus(req.res, out, obj)
			if record == recordedByApply {
				out.(metav1.Object).SetManagedFields(meta.GetManagedFields())
			}
			obj = out
		} else {
			if req.res.Status {
				copyStatus(req.res, obj, cur)
			}
			if err := admitUpdate(req.res, obj, cur); err != nil {
				return nil, err
			}
		}
		if record == recordAsUpdate {
			return recordUpdate(req, manager, cur, obj)
		}
		return obj, nil
	}
	if dryRun(r) {
		cur, err := s.get(req)
		if err != nil {
			return err
		}
		obj, err := change(cur)
		if err != nil {
			return err
		}
		if req.subresource != "status" {
			warn(w, obj)
		}
		writeJSON(w, http.StatusOK, obj)
		return nil
	}
	updated, err := s.cfg.Store.Modify(req.key(), change)
	if err != nil {
		return storeError(req.res, req.name, err)
	}
	if req.subresource != "status" {
		warn(w, updated)
	}
	writeJSON(w, http.StatusOK, updated)
	return nil
}

// preconditionFailed is kube-apiserver's message for a failed precondition.
func preconditionFailed(format string, args ...any) error {
	return errors.New("Precondition failed: " + fmt.Sprintf(format, args...))
}

func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request, req request) error {
	opts, err := deleteOptions(r)
	if err != nil {
		return err
	}
	check := func(cur runtime.Object) error {
		meta := cur.(metav1.Object)
		if p := opts.Preconditions; p != nil {
			if p.UID != nil && *p.UID != meta.GetUID() {
				return apierrors.NewConflict(req.res.groupResource(), req.name,
					preconditionFailed("UID in precondition: %s, UID in object meta: %s", *p.UID, meta.GetUID()))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != meta.GetResourceVersion() {
				return apierrors.NewConflict(req.res.groupResource(), req.name,
					preconditionFailed("ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, meta.GetResourceVersion()))
			}
		}
		return nil
	}
	if req.res.Kind == kinds.Namespace && (req.name == metav1.NamespaceDefault || req.name == metav1.NamespaceSystem) {
		return apierrors.NewForbidden(req.res.groupResource(), req.name, fmt.Errorf("this namespace may not be deleted"))
	}
	if dryRun(r) || len(opts.DryRun) > 0 {
		obj, err := s.get(req)
		if err == nil {
			err = check(obj)
		}
		if err == nil {
			writeJSON(w, http.StatusOK, obj)
		}
		return err
	}
	if req.res.Kind == kinds.Pod {
		if obj, ok, err := s.terminatePod(req, opts, check); ok || err != nil {
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, obj)
			return nil
		}
	}
	obj, err := s.cfg.Store.DeleteIf(req.key(), check)
	if err != nil {
		return storeError(req.res, req.name, err)
	}
	if req.res.Kind == kinds.Namespace {
		s.deleteNamespaced(req.name)
	}
	writeJSON(w, http.StatusOK, obj)
	return nil
}

// terminatePod starts a graceful deletion of a pod bound to a node: it gets
// a deletionTimestamp and its node's kubelet removes it once it stopped.
// ok is false when the pod is to be removed at once (not bound, or a grace
// period of 0).
func (s *Server) terminatePod(req request, opts *metav1.DeleteOptions, check func(runtime.Object) error) (runtime.Object, bool, error) {
	cur, ok := s.cfg.Store.Get(req.key())
	if !ok {
		return nil, false, apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	p := cur.(*corev1.Pod)
	grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
	if p.Spec.TerminationGracePeriodSeconds != nil {
		grace = *p.Spec.TerminationGracePeriodSeconds
	}
	if opts.GracePeriodSeconds != nil {
		grace = *opts.GracePeriodSeconds
	}
	if p.Spec.NodeName == "" || grace == 0 {
		return nil, false, nil
	}
	var checkErr error
	obj, _ := s.cfg.Store.Update(req.key(), func(o runtime.Object) bool {
		if checkErr = check(o); checkErr != nil {
			return false
		}
		p := o.(*corev1.Pod)
		if p.DeletionTimestamp != nil {
			return false
		}
		now := metav1.NewTime(time.Now())
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &now, &grace
		return true
	})
	if checkErr != nil {
		return nil, true, checkErr
	}
	if obj == nil {
		return nil, true, apierrors.NewNotFound(req.res.groupResource(), req.name)
	}
	return obj, true, nil
}

// deleteNamespaced removes what a deleted namespace held.
func (s *Server) deleteNamespaced(namespace string) {
	for _, res := range resources {
		if !res.Namespaced || res.Computed {
			continue
		}
		for _, o := range s.cfg.Store.List(res.Kind, namespace) {
			s.cfg.Store.Delete(store.KeyOf(o))
		}
	}
}

// deleteOptions reads DeleteOptions from the body or the query. A body,
// which is optional, is checked as kube-apiserver checks it: only when it
// is not empty.
func deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	data, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 {
		if err := apiauth.CheckBody(r, apiauth.ObjectBody); err != nil {
			return nil, err
		}
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case len(data) == 0:
	case mediaType == runtime.ContentTypeProtobuf:
		if _, _, err := kinds.Protobuf.Decode(data, nil, opts); err != nil {
			return nil, badRequest("decoding DeleteOptions: %v", err)
		}
	case mediaType == runtime.ContentTypeYAML:
		if err := yaml.Unmarshal(data, opts); err != nil {
			return nil, badRequest("decoding DeleteOptions: %v", err)
		}
	case len(strings.TrimSpace(string(data))) > 0:
		if err := json.Unmarshal(data, opts); err != nil {
			return nil, badRequest("decoding DeleteOptions: %v", err)
		}
	}
	if g := r.URL.Query().Get("gracePeriodSeconds"); g != "" {
		var v int64
		if _, err := fmt.Sscan(g, &v); err != nil {
			return nil, badRequest("gracePeriodSeconds %q: not a number", g)
		}
		opts.GracePeriodSeconds = &v
	}
	return opts, nil
}
