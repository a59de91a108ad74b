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

// A Store holds a cluster's objects; Key names one of them.
type (
	Store = store.Store
	Key   = store.Key
)

// NewStore returns an empty store.
func NewStore() *Store { return store.New() }

// KeyOf is the key of obj.
func KeyOf(obj runtime.Object) Key { return store.KeyOf(obj) }

// APIServerConfig configures NewAPIServer.
type APIServerConfig = apiserver.Config

// NewAPIServer returns the Kubernetes API over a store, on a port of its
// own (the token of cfg checked, nothing else mounted).
func NewAPIServer(cfg APIServerConfig) http.Handler { return apiserver.New(cfg) }
