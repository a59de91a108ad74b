package testenv

import (
	"errors"
	"testing"
	"time"
)

// patience bounds every wait: generous, so that a slow machine never fails a
// test that would converge; tests assert an eventual state, not a timing.
const patience = 30 * time.Second

var errNotYet = errors.New("not yet")

// Eventually calls cond until it holds, and fails t, naming what it waited
// for, if it does not hold within a generous deadline.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	EventuallyNil(t, what, func() error {
		if cond() {
			return nil
		}
		return errNotYet
	})
}

// EventuallyNil calls check until it returns nil, and fails t with what it
// waited for and check's last error if it does not within a generous
// deadline.
func EventuallyNil(t testing.TB, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			if err == errNotYet {
				t.Fatalf("gave up waiting for %s", what)
			}
			t.Fatalf("gave up waiting for %s: %v", what, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
