package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/pod"
	"github.com/kube32/kube32/host/internal/podlog"
)

// serveLogs answers pods/log from the log its node keeps of the pod, as
// host/internal/podlog selects and writes it for the query: the kept
// lines, then with follow=true the lines that follow until the pod stops
// running here or the client goes.
func (s *Server) serveLogs(w http.ResponseWriter, r *http.Request, req request) error {
	obj, err := s.get(req)
	if err != nil {
		return err
	}
	p := obj.(*corev1.Pod)
	q := r.URL.Query()
	container := p.Spec.Containers[0].Name
	if c := q.Get("container"); c != "" && c != container {
		return badRequest("container %s is not valid for pod %s", c, p.Name)
	}
	opts, err := podlog.Parse(q, time.Now())
	if err != nil {
		return logError(err)
	}
	var lines []pod.Line
	var next <-chan pod.Line
	stop, ok := func() {}, false
	if s.cfg.Logs != nil {
		lines, next, stop, ok = s.cfg.Logs.FollowLogs(p.Namespace, p.Name)
	}
	if !ok {
		why := "is waiting to start"
		if p.Spec.NodeName == "" {
			why = "is waiting to start: the pod is not scheduled"
		}
		return apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q %s", container, p.Name, why))
	}
	defer stop()
	if lines, err = opts.Select(lines, restarts(p, container), container, p.Name); err != nil {
		return logError(err)
	}
	if opts.Follow {
		if err := beginStream(w, r); err != nil {
			return err
		}
	}
	podlog.Write(w, r, lines, next, opts, func() bool {
		// The stream ends with the pod: deleted or replaced.
		cur, err := s.get(req)
		return err == nil && cur.(*corev1.Pod).UID == p.UID && cur.(*corev1.Pod).DeletionTimestamp == nil
	})
	return nil
}

// restarts is the container's restart count in the pod's status.
func restarts(p *corev1.Pod, container string) int32 {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount
		}
	}
	return 0
}

// logError turns a query podlog cannot answer into kube-apiserver's Status.
func logError(err error) error {
	var e *podlog.Error
	if !errors.As(err, &e) {
		return err
	}
	if e.Code == http.StatusUnprocessableEntity {
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: int32(e.Code),
			Reason: metav1.StatusReasonInvalid, Message: e.Message}}
	}
	return apierrors.NewBadRequest(e.Message)
}
