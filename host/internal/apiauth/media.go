package apiauth

import (
	"mime"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/apistatus"
)

// Body is what one endpoint of the API port reads in a request body: the
// media types it takes, named in the request's Content-Type (its
// parameters, such as charset, aside). Every endpoint that reads a body
// checks it first (CheckBody), so that a web page of another site, which
// may send a body without a preflight only as text/plain, a form, or with
// no Content-Type, writes nothing (docs/serve.md, "Web pages").
type Body struct {
	types []string
	// untyped: a body without Content-Type is read as types[0], as
	// kube-apiserver reads one as JSON (kubectl create --raw sends none),
	// unless a browser sent it (fromBrowser).
	untyped bool
}

// ChannelContentType is the type of the channel messages a worker
// forwards to the control plane: their payloads, any bytes.
const ChannelContentType = "application/octet-stream"

// The bodies of the API port's endpoints.
var (
	// ObjectBody is an object's body (create, update, a review,
	// DeleteOptions): kube-apiserver's media types, a missing one read
	// as JSON.
	ObjectBody = Body{types: []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf}, untyped: true}
	// PatchBody is a patch's: kube-apiserver's patch types (its CBOR apply
	// patch is behind an alpha feature gate, off), a missing one refused
	// as kube-apiserver refuses it.
	PatchBody = Body{types: []string{string(types.JSONPatchType), string(types.MergePatchType),
		string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType)}}
	// ChannelBody is a channel message, its payload as it is: bytes as
	// workers send them (ChannelContentType), or JSON (docs/channels.md).
	ChannelBody = Body{types: []string{ChannelContentType, runtime.ContentTypeJSON}, untyped: true}
	// UplinkBody is {"up":bool}, as `kube32 uplink` sends it.
	UplinkBody = Body{types: []string{runtime.ContentTypeJSON}, untyped: true}
	// LoginBody is the web view's login form, as its page sends it.
	LoginBody = Body{types: []string{"application/x-www-form-urlencoded"}}
	// EgressBody is an egress gateway request, as workers send it.
	EgressBody = Body{types: []string{abi.EgressContentType}}
)

// CheckBody returns nil when r's body may be read as b, and otherwise the
// 415 Status kube-apiserver answers a body it cannot read, naming b's
// media types.
func CheckBody(r *http.Request, b Body) error {
	contentType := r.Header.Get("Content-Type")
	if contentType == "" && b.untyped && !fromBrowser(r) {
		return nil
	}
	if mediaType, _, err := mime.ParseMediaType(contentType); err == nil && slices.Contains(b.types, mediaType) {
		return nil
	}
	message := "the body of the request was in an unknown format - accepted media types include: " + strings.Join(b.types, ", ")
	if contentType == "" && b.untyped {
		message += " (a browser's body must name its media type in Content-Type)"
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType, Message: message,
	}}
}

// fromBrowser reports whether a browser sent r: browsers send Origin with
// every request whose method is not GET or HEAD (the Fetch standard), and
// other clients (kubectl, client-go, the nodes) send none.
func fromBrowser(r *http.Request) bool {
	_, ok := r.Header["Origin"]
	return ok
}

// RequireBody is h behind CheckBody: a body h cannot read is answered
// 415 as a Status before h is called.
func RequireBody(b Body, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := CheckBody(r, b); err != nil {
			apistatus.Write(w, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}
