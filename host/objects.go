package host

import (
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kube32/kube32/host/internal/admission"
	"github.com/kube32/kube32/host/internal/apiserver"
	"github.com/kube32/kube32/host/internal/store"
)

// Admit defaults and validates obj as the API server does.
func Admit(obj runtime.Object) field.ErrorList { return admission.Admit(obj) }

// A Key names an object of a cluster: its kind ("Pod"), namespace ("" for
// a cluster-scoped kind) and name.
type Key struct {
	Kind, Namespace, Name string
}

// An API is the Kubernetes API over objects of its own, without nodes or
// pods: serve's API server with nothing else mounted (bench/api, tests of
// what the API refuses). Objects go in through admission, as a client's
// writes do.
type API struct {
	store   *store.Store
	handler http.Handler
}

// NewAPI returns an API holding no objects; token, when set, is the
// bearer token it requires.
func NewAPI(token string) *API {
	s := store.New()
	return &API{store: s, handler: apiserver.New(apiserver.Config{Store: s, Token: token})}
}

// ServeHTTP answers a request of the Kubernetes API.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.handler.ServeHTTP(w, r) }

// ApplyObject creates or replaces one object, admitted as the API server
// admits a client's.
func (a *API) ApplyObject(obj runtime.Object) error { return applyAdmitted(a.store, obj) }

// List returns the objects of a kind in a namespace ("": every namespace).
func (a *API) List(kind, namespace string) []runtime.Object { return a.store.List(kind, namespace) }

// Version is the resourceVersion of the latest change.
func (a *API) Version() int64 { return a.store.Version() }

// applyAdmitted is the one way objects enter a store from outside host.
func applyAdmitted(s *store.Store, obj runtime.Object) error {
	if errs := admission.Admit(obj); len(errs) > 0 {
		return errs.ToAggregate()
	}
	s.Apply(obj)
	return nil
}
