package kubeletapi

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kube32/kube32/host/internal/httplimit"
	"github.com/kube32/kube32/host/internal/podlog"
)

// serveLogs answers GET /containerLogs/{namespace}/{pod}/{container}, what
// kube-apiserver calls for pods/log, from the log the node keeps of the
// pod (host/internal/podlog, as the API server answers pods/log): an
// unknown pod or container is the kubelet's 404.
func (s *Server) serveLogs(w http.ResponseWriter, r *http.Request) {
	namespace, name, container := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	spec, status, ok := s.cfg.Pods.Running(namespace, name)
	if !ok {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	if !slices.ContainsFunc(spec.Spec.Containers, func(c corev1.Container) bool { return c.Name == container }) {
		http.Error(w, fmt.Sprintf("container %q not found in pod %q", container, name), http.StatusNotFound)
		return
	}
	opts, err := podlog.Parse(r.URL.Query(), time.Now())
	if err != nil {
		logError(w, err)
		return
	}
	lines, next, stop, ok := s.cfg.Pods.FollowLogs(namespace, name)
	if !ok {
		http.Error(w, fmt.Sprintf("pod %q does not exist", name), http.StatusNotFound)
		return
	}
	defer stop()
	if lines, err = opts.Select(lines, status.RestartCount, container, name); err != nil {
		logError(w, err)
		return
	}
	if opts.Follow {
		if err := httplimit.Stream(r, httplimit.APIStream); err != nil {
			refused(w, err)
			return
		}
	}
	podlog.Write(w, r, lines, next, opts, func() bool { return s.stillRunning(spec) })
}

// stillRunning reports whether the pod spec was started from still runs
// on the node: not deleted, nor replaced by another of the same name.
func (s *Server) stillRunning(spec *corev1.Pod) bool {
	cur, _, ok := s.cfg.Pods.Running(spec.Namespace, spec.Name)
	return ok && cur.UID == spec.UID
}

// logError answers a query podlog cannot answer, with its code.
func logError(w http.ResponseWriter, err error) {
	code := http.StatusBadRequest
	var e *podlog.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	http.Error(w, err.Error(), code)
}

// refused answers a stream refused for want of room in the connection
// budget: 503 or 429 with Retry-After.
func refused(w http.ResponseWriter, err error) {
	code := http.StatusServiceUnavailable
	var ref *httplimit.Refused
	if errors.As(err, &ref) {
		ref.SetRetryAfter(w.Header())
		code = ref.Code
	}
	http.Error(w, err.Error(), code)
}
