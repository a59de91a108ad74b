package apiserver

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/internal/apiauth"
)

// servePatch applies a JSON, merge or strategic-merge patch to the current
// object, atomically, then writes it as an update does; an apply patch is
// server-side apply (apply.go).
func (s *Server) servePatch(w http.ResponseWriter, r *http.Request, req request) error {
	if err := apiauth.CheckBody(r, apiauth.PatchBody); err != nil {
		return err
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	patchType := types.PatchType(mediaType)
	if patchType == types.ApplyYAMLPatchType {
		return s.serveApply(w, r, req)
	}
	if r.URL.Query().Has("force") {
		return invalidOptions("PatchOptions", field.Forbidden(field.NewPath("force"), "may not be specified for non-apply patch"))
	}
	patch, err := readBody(r)
	if err != nil {
		return err
	}
	return s.replace(w, r, req, func(cur runtime.Object) (runtime.Object, error) {
		original, err := json.Marshal(cur)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		patched, err := applyPatch(patchType, original, patch, cur)
		if err != nil {
			return nil, err
		}
		return decodeFor(w, r, req, patched)
	}, recordAsUpdate)
}

func applyPatch(patchType types.PatchType, original, patch []byte, schema runtime.Object) ([]byte, error) {
	var out []byte
	var err error
	switch patchType {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, badRequest("applying the %s: %v", patchType, err)
		}
		if out, err = p.Apply(original); err != nil {
			// A well-formed patch that does not apply (a failed "test", a
			// missing path) is a 422, as kube-apiserver answers it.
			return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
				Message: fmt.Sprintf("the server rejected our request due to an error in our request: applying the %s: %v", patchType, err),
			}}
		}
		return out, nil
	case types.MergePatchType:
		out, err = jsonpatch.MergePatch(original, patch)
	default:
		out, err = strategicpatch.StrategicMergePatch(original, patch, schema)
	}
	if err != nil {
		return nil, badRequest("applying the %s: %v", patchType, err)
	}
	return out, nil
}
