package apiserver

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kube32/kube32/host/internal/apiauth"
)

// serveReview answers a POST to a review resource with its status filled
// by its strategy (host/internal/admission/reviews.go).
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, req request) error {
	if r.Method != http.MethodPost || req.name != "" || req.subresource != "" {
		return methodNotAllowed(req.res, verbOf(r.Method, req.name))
	}
	data, err := readBodyAs(r, apiauth.ObjectBody)
	if err != nil {
		return err
	}
	review := req.res.New()
	if err := decodeReview(data, req, review); err != nil {
		return err
	}
	req.res.Answer(review)
	writeJSON(w, http.StatusCreated, review)
	return nil
}

// reviewDecoder reads reviews as JSON, YAML or protobuf (kubectl's typed
// clients send protobuf).
var reviewDecoder = func() runtime.Decoder {
	scheme := runtime.NewScheme()
	utilruntime.Must(authorizationv1.AddToScheme(scheme))
	utilruntime.Must(authenticationv1.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme).UniversalDeserializer()
}()

// decodeReview reads a review's body into obj, whose kind and apiVersion
// are then the resource's.
func decodeReview(data []byte, req request, obj runtime.Object) error {
	gvk := req.res.gv().WithKind(req.res.Kind)
	if _, _, err := reviewDecoder.Decode(data, &gvk, obj); err != nil {
		return badRequest("the body of the request could not be decoded as %s: %v", req.res.Kind, err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}
