package podlog

import "github.com/kube32/kube32/host/internal/pod"

// Select keeps the lines of a pod's log that o asks for: those of the
// previous instance (Previous), as the kubelet keeps a restarted
// container's previous log, those since o.Since, then the last TailLines.
// restarts is the current instance's restart count; without a restart,
// Previous is kube-apiserver's 400, naming container and podName.
func (o Options) Select(lines []pod.Line, restarts int32, container, podName string) ([]pod.Line, error) {
	if o.Previous {
		if restarts == 0 {
			return nil, badQuery("previous terminated container %q in pod %q not found", container, podName)
		}
		var kept []pod.Line
		for _, l := range lines {
			if l.Restart == restarts-1 {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	if !o.Since.IsZero() {
		var kept []pod.Line
		for _, l := range lines {
			if !l.Time.Before(o.Since) {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	if o.TailLines != nil && *o.TailLines < int64(len(lines)) {
		lines = lines[int64(len(lines))-*o.TailLines:]
	}
	return lines, nil
}
