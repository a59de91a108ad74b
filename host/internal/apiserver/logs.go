package apiserver

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kube32/kube32/host/internal/pod"
)

// serveLogs answers pods/log from the log its node keeps of the pod: the kept
// lines (tailLines, timestamps), then with follow=true the lines that
// follow until the pod stops running here or the client goes.
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
	if q.Get("previous") == "true" {
		if lines, err = previousInstance(p, lines); err != nil {
			return err
		}
		q.Del("follow") // the previous instance logs no more
	}
	if t := q.Get("tailLines"); t != "" {
		if n, err := strconv.Atoi(t); err == nil && n >= 0 && n < len(lines) {
			lines = lines[len(lines)-n:]
		}
	}
	timestamps := q.Get("timestamps") == "true"
	if q.Get("follow") == "true" {
		if err := beginStream(w, r); err != nil {
			return err
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriter(w)
	for _, l := range lines {
		writeLine(out, l, timestamps)
	}
	out.Flush()
	if q.Get("follow") != "true" {
		return nil
	}
	w.(http.Flusher).Flush()
	check := time.NewTicker(250 * time.Millisecond)
	defer check.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case l, ok := <-next:
			if !ok {
				return nil
			}
			writeLine(out, l, timestamps)
			out.Flush()
			w.(http.Flusher).Flush()
		case <-check.C:
			// The stream ends with the pod: deleted or replaced.
			cur, err := s.get(req)
			if err != nil || cur.(*corev1.Pod).UID != p.UID || cur.(*corev1.Pod).DeletionTimestamp != nil {
				return nil
			}
		}
	}
}

// previousInstance keeps the lines of the instance before the current one,
// as the kubelet keeps a restarted container's previous log; without a
// restart it answers kube-apiserver's 400.
func previousInstance(p *corev1.Pod, lines []pod.Line) ([]pod.Line, error) {
	container := p.Spec.Containers[0].Name
	var restarts int32
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			restarts = cs.RestartCount
		}
	}
	if restarts == 0 {
		return nil, badRequest("previous terminated container %q in pod %q not found", container, p.Name)
	}
	var kept []pod.Line
	for _, l := range lines {
		if l.Restart == restarts-1 {
			kept = append(kept, l)
		}
	}
	return kept, nil
}

func writeLine(out *bufio.Writer, l pod.Line, timestamps bool) {
	if timestamps {
		out.WriteString(l.Time.UTC().Format(time.RFC3339Nano) + " ")
	}
	out.WriteString(pod.LogText(l.Text)) // one line, whoever wrote it
	out.WriteByte('\n')
}
