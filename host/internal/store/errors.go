package store

import "errors"

// Errors of the store's writes and watches; the API server turns each into
// the metav1.Status kube-apiserver answers.
var (
	// ErrNotFound: no object has the key.
	ErrNotFound = errors.New("not found")
	// ErrAlreadyExists: Create found an object of the key.
	ErrAlreadyExists = errors.New("already exists")
	// ErrConflict: the write was based on an older resourceVersion.
	ErrConflict = errors.New("the object has been modified; please apply your changes to the latest version and try again")
	// ErrGone: a watch asked for changes older than the kept history.
	ErrGone = errors.New("too old resource version")
	// ErrTooNew: a watch asked for changes after a resourceVersion the
	// store has not reached, one a client kept from an earlier store (a
	// server since restarted).
	ErrTooNew = errors.New("too large resource version")
)
