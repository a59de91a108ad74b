package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// serveApply is server-side apply (PATCH as application/apply-patch+yaml):
// the body is the manager's whole intent for the object, merged into the
// current object by the field manager (fieldmanager.go), which answers a
// 409 Conflict naming each field another manager owns unless force=true
// (kubectl --force-conflicts) takes them over. An object that does not
// exist is created from it. Either way the result is admitted as any
// write is.
func (s *Server) serveApply(w http.ResponseWriter, r *http.Request, req request) error {
	query := r.URL.Query()
	manager := query.Get("fieldManager")
	if manager == "" {
		return invalidOptions("PatchOptions", field.Required(field.NewPath("fieldManager"), "is required for apply patch"))
	}
	if _, err := managerName(r); err != nil {
		return err
	}
	force := false
	if v := query.Get("force"); v != "" {
		var err error
		if force, err = strconv.ParseBool(v); err != nil {
			return badRequest("force=%q: not a boolean", v)
		}
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	config, err := applyConfiguration(body, req)
	if err != nil {
		return err
	}
	if err := checkApplyDuplicates(w, r, body); err != nil {
		return err
	}
	m, err := fieldManager(req)
	if err != nil {
		return err
	}
	apply := func(live runtime.Object) (runtime.Object, error) {
		obj, err := m.Apply(live, config.DeepCopy(), manager, force)
		var api apierrors.APIStatus
		switch {
		case errors.As(err, &api):
			return nil, err
		case err != nil:
			return nil, badRequest("%v", err) // the configuration does not fit the kind's schema
		}
		return obj, nil
	}
	if _, exists := s.cfg.Store.Get(req.key()); !exists && req.subresource == "" {
		err := s.applyCreate(w, r, req, apply)
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		// created meanwhile: apply to what is there
	}
	return s.replace(w, r, req, apply, recordedByApply)
}

// applyCreate creates the object an apply names, as the applied
// configuration merged into an empty object.
func (s *Server) applyCreate(w http.ResponseWriter, r *http.Request, req request, apply func(runtime.Object) (runtime.Object, error)) error {
	live, err := newObject(req, req.name)
	if err != nil {
		return err
	}
	obj, err := apply(live)
	if err != nil {
		return err
	}
	if name := obj.(metav1.Object).GetName(); name != req.name {
		return badRequest("the name of the object (%s) does not match the name on the URL (%s)", name, req.name)
	}
	return s.create(w, r, req, obj, nil)
}

// applyConfiguration reads an apply body (YAML or JSON) as the unstructured
// object the field manager merges; its namespace, when set, must be the
// URL's. Its kind and apiVersion are the field manager's to check.
func applyConfiguration(body []byte, req request) (*unstructured.Unstructured, error) {
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, badRequest("error decoding YAML: %v", err)
	}
	config := &unstructured.Unstructured{}
	if err := utiljson.Unmarshal(js, &config.Object); err != nil || config.Object == nil {
		return nil, badRequest("error decoding YAML: the body is not an object: %v", err)
	}
	switch ns := config.GetNamespace(); {
	case !req.res.Namespaced && ns != "":
		config.SetNamespace("")
	case req.res.Namespaced && ns != "" && ns != req.namespace:
		return nil, badRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return config, nil
}

// checkApplyDuplicates looks for a key given twice in an apply body, which
// reading it as a map silently drops: a 400 with fieldValidation=Strict
// (kubectl's default), a Warning header with Warn (the API's default), as
// kube-apiserver's apply does.
func checkApplyDuplicates(w http.ResponseWriter, r *http.Request, body []byte) error {
	directive := r.URL.Query().Get("fieldValidation")
	if directive == metav1.FieldValidationIgnore {
		return nil
	}
	err := yaml.UnmarshalStrict(body, &map[string]any{})
	if err == nil {
		return nil
	}
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "), "\n  ", " ")
	if directive == metav1.FieldValidationStrict {
		return badRequest("error strict decoding YAML: %s", msg)
	}
	w.Header().Add("Warning", fmt.Sprintf("299 - %q", msg))
	return nil
}
