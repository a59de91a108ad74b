package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/store"
)

// versionOptions are the resourceVersion parameters of a list or a watch
// (docs/kubectl.md#watches-and-resourceversions).
type versionOptions struct {
	raw               string // resourceVersion as sent
	version           int64  // raw parsed; 0 for "" and "0"
	match             metav1.ResourceVersionMatch
	sendInitialEvents *bool
	bookmarks         bool // allowWatchBookmarks
}

// anyVersion reports whether the client takes any version, the current one here
// (resourceVersion "" or "0").
func (o versionOptions) anyVersion() bool { return o.raw == "" || o.raw == "0" }

// versionOptionsOf reads and validates a request's resourceVersion
// parameters with the rules kube-apiserver applies (the watch-list feature
// on): sendInitialEvents needs resourceVersionMatch=NotOlderThan, Exact
// is for lists only and never with "0", and so on.
func versionOptionsOf(r *http.Request, watch bool) (versionOptions, error) {
	q := r.URL.Query()
	opts := internalversion.ListOptions{
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.Get("resourceVersionMatch")),
		Continue:             q.Get("continue"),
		Watch:                watch,
	}
	for _, b := range []struct {
		name string
		set  func(bool)
	}{
		{"sendInitialEvents", func(v bool) { opts.SendInitialEvents = &v }},
		{"allowWatchBookmarks", func(v bool) { opts.AllowWatchBookmarks = v }},
	} {
		if s := q.Get(b.name); s != "" {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return versionOptions{}, badRequest("%s %q: not a boolean", b.name, s)
			}
			b.set(v)
		}
	}
	if errs := validation.ValidateListOptions(&opts, true); len(errs) > 0 {
		return versionOptions{}, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	out := versionOptions{raw: opts.ResourceVersion, match: opts.ResourceVersionMatch,
		sendInitialEvents: opts.SendInitialEvents, bookmarks: opts.AllowWatchBookmarks}
	if out.raw != "" {
		v, err := strconv.ParseInt(out.raw, 10, 64)
		if err != nil || v < 0 {
			return versionOptions{}, badRequest("resourceVersion %q: not a resourceVersion of this server", out.raw)
		}
		out.version = v
	}
	return out, nil
}

// tooLargeVersion is kube-apiserver's answer to a resourceVersion newer
// than the server's: 504 with the cause ResourceVersionTooLarge, on which
// client-go's reflector lists again from the current version. Nothing can
// be in flight between a write and the store here, so it answers at once
// rather than after kube-apiserver's 3 s wait.
func tooLargeVersion(requested, current int64) error {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", requested, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// watchError maps the store's refusal of a watch's resourceVersion.
func watchError(res *resource, requested, current int64, err error) error {
	if errors.Is(err, store.ErrTooNew) {
		return tooLargeVersion(requested, current)
	}
	return storeError(res, "", err)
}

// listVersionError says why a list cannot be served at the requested
// version, or nil. NotOlderThan (and no match, which means the same for a
// list) takes the current state; Exact is served at the current version
// only, as the store keeps changes but no past states.
func listVersionError(opts versionOptions, current int64) error {
	switch {
	case opts.anyVersion():
		return nil
	case opts.version > current:
		return tooLargeVersion(opts.version, current)
	case opts.match == metav1.ResourceVersionMatchExact && opts.version != current:
		return apierrors.NewResourceExpired(fmt.Sprintf("resourceVersion %d: a list with resourceVersionMatch=Exact is served only at the current resourceVersion %d", opts.version, current))
	}
	return nil
}

// bookmarkDelay is how long until a watch's next periodic bookmark: every
// abi.WatchBookmarkInterval, and 2 s before its deadline (if any), which
// leaves the client as fresh a resourceVersion as it can have when the
// watch times out.
func bookmarkDelay(now, deadline time.Time) time.Duration {
	next := now.Add(abi.WatchBookmarkInterval)
	if !deadline.IsZero() {
		if pre := deadline.Add(-2 * time.Second); pre.After(now) && pre.Before(next) {
			next = pre
		}
	}
	return next.Sub(now)
}
