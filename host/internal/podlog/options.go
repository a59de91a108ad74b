// Package podlog answers a query of `kubectl logs` from the log a node
// keeps of a pod (docs/kubectl.md): which kept lines the query selects
// (previous instance, since, tail), then the lines that follow with
// follow=true. The API server's pods/log and a kube32 node's kubelet API
// (host/internal/kubeletapi, docs/kubeletapi.md) both answer with it.
package podlog

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Options is a query of a pod's log: the fields of PodLogOptions a kube32
// node keeps what is needed for.
type Options struct {
	Follow, Previous, Timestamps bool
	// TailLines, when set, keeps only the last lines; LimitBytes, when
	// set, ends the answer after that many bytes.
	TailLines, LimitBytes *int64
	// Since, when not zero, keeps only the lines written at or after it
	// (sinceSeconds or sinceTime).
	Since time.Time
}

// Error is a query that cannot be answered: Code is 400 for a malformed
// query or a previous instance that does not exist, 422 for a value out
// of range, as kube-apiserver and the kubelet answer them.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

func badQuery(format string, args ...any) error {
	return &Error{Code: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &Error{Code: http.StatusUnprocessableEntity, Message: fmt.Sprintf(format, args...)}
}

// Parse reads the query parameters of pods/log (and of the kubelet's
// containerLogs, which kube-apiserver passes on); now is the clock
// sinceSeconds counts back from. A boolean parameter is true unless it is
// "0", "false" or "f", as Kubernetes reads query parameters.
func Parse(q url.Values, now time.Time) (Options, error) {
	var o Options
	o.Follow, o.Previous, o.Timestamps = flag(q, "follow"), flag(q, "previous"), flag(q, "timestamps")
	var err error
	if o.TailLines, err = number(q, "tailLines", 0); err != nil {
		return o, err
	}
	if o.LimitBytes, err = number(q, "limitBytes", 1); err != nil {
		return o, err
	}
	seconds, err := number(q, "sinceSeconds", 1)
	if err != nil {
		return o, err
	}
	if q.Has("sinceTime") {
		if seconds != nil {
			return o, invalid("at most one of sinceTime or sinceSeconds may be specified")
		}
		if o.Since, err = time.Parse(time.RFC3339, q.Get("sinceTime")); err != nil {
			return o, badQuery("sinceTime: %q is not an RFC 3339 time", q.Get("sinceTime"))
		}
	}
	if seconds != nil {
		o.Since = now.Add(-time.Duration(*seconds) * time.Second)
	}
	// The previous instance logs no more.
	if o.Previous {
		o.Follow = false
	}
	return o, nil
}

func flag(q url.Values, name string) bool {
	if !q.Has(name) {
		return false
	}
	v := q.Get(name)
	return v != "0" && !strings.EqualFold(v, "false") && !strings.EqualFold(v, "f")
}

// number reads an integer parameter that must be at least least.
func number(q url.Values, name string, least int64) (*int64, error) {
	if !q.Has(name) {
		return nil, nil
	}
	n, err := strconv.ParseInt(q.Get(name), 10, 64)
	if err != nil {
		return nil, badQuery("%s: %q is not an integer", name, q.Get(name))
	}
	if n < least {
		if least == 0 {
			return nil, invalid("%s: Invalid value: %d: must be greater than or equal to 0", name, n)
		}
		return nil, invalid("%s: Invalid value: %d: must be greater than 0", name, n)
	}
	return &n, nil
}
