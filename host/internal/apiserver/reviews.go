package apiserver

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/kinds"
)

// The self-subject reviews, answered as a single-user cluster does
// (docs/kubectl.md): whoever got past the token check (or anyone, when the
// cluster has no token) is the cluster's one user, who may do everything.
// So `kubectl auth can-i` says yes and `kubectl auth whoami` names that
// user.

// userName and userGroups are who the API server says its one user is.
const userName = "kube32-admin"

var userGroups = []string{"system:masters", "system:authenticated"}

// serveReview answers a POST to a review resource with its status filled.
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, req request) error {
	if r.Method != http.MethodPost || req.name != "" || req.subresource != "" {
		return methodNotAllowed(req.res, verbOf(r.Method, req.name))
	}
	data, err := readBodyAs(r, apiauth.ObjectBody)
	if err != nil {
		return err
	}
	var review any
	switch req.res.Kind {
	case kinds.SelfSubjectAccessReview:
		ssar := &authorizationv1.SelfSubjectAccessReview{}
		if err := decodeReview(data, req, ssar); err != nil {
			return err
		}
		ssar.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true,
			Reason: "kube32 has one user, who may do everything"}
		review = ssar
	case kinds.SelfSubjectRulesReview:
		ssrr := &authorizationv1.SelfSubjectRulesReview{}
		if err := decodeReview(data, req, ssrr); err != nil {
			return err
		}
		ssrr.Status = authorizationv1.SubjectRulesReviewStatus{
			ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
			NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		}
		review = ssrr
	default: // SelfSubjectReview
		ssr := &authenticationv1.SelfSubjectReview{}
		if err := decodeReview(data, req, ssr); err != nil {
			return err
		}
		ssr.Status.UserInfo = authenticationv1.UserInfo{Username: userName, Groups: userGroups}
		review = ssr
	}
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
