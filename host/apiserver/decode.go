package apiserver

import (
	"fmt"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kube32/kube32/host/manifest"
)

// decodeFor decodes a body meant for req's resource with host/manifest's
// strict decoder and checks its kind, group version and namespace against
// the URL. Unknown or duplicate fields fail the request when
// fieldValidation is Strict, add a Warning header when it is Warn (the
// default) and pass when it is Ignore.
func decodeFor(w http.ResponseWriter, r *http.Request, req request, data []byte) (runtime.Object, error) {
	obj, strictErr, err := decodeBody(r, data)
	if err != nil {
		return nil, badRequest("the body of the request could not be decoded as %s: %v", req.res.Kind, err)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind != req.res.Kind {
		return nil, badRequest("the kind in the body (%s) does not match the resource %s (kind %s)", gvk.Kind, req.res.Name, req.res.Kind)
	}
	if gvk.GroupVersion() != req.res.gv() {
		return nil, badRequest("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), req.res.apiVersion())
	}
	if strictErr != nil {
		switch r.URL.Query().Get("fieldValidation") {
		case metav1.FieldValidationStrict:
			return nil, apierrors.NewBadRequest(fmt.Sprintf("strict decoding error: %v", strictErr))
		case metav1.FieldValidationIgnore:
		default:
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", strictErr.Error()))
		}
	}
	meta := obj.(metav1.Object)
	if req.res.Namespaced {
		switch {
		case meta.GetNamespace() == "":
			meta.SetNamespace(req.namespace)
		case req.namespace != "" && meta.GetNamespace() != req.namespace:
			return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
		}
	} else if meta.GetNamespace() != "" {
		meta.SetNamespace("")
	}
	return obj, nil
}

// protobufSerializer decodes the protobuf bodies client-go's typed clients
// send by default; protobuf has no unknown fields to be strict about.
var protobufSerializer = protobuf.NewSerializer(manifest.Scheme, manifest.Scheme)

func decodeBody(r *http.Request, data []byte) (obj runtime.Object, strictErr, err error) {
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mediaType == runtime.ContentTypeProtobuf && r.Method != http.MethodPatch {
		obj, _, err = protobufSerializer.Decode(data, nil, nil)
		return obj, nil, err
	}
	return manifest.DecodeObject(data)
}
