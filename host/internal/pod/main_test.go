package pod

import (
	"testing"

	"github.com/kube32/kube32/internal/testkit/testpods"
)

// onePage builds the shared C test pod name with one page (64Ki) of memory.
func onePage(t testing.TB, name string) []byte { return testpods.Fixture(t, name, 65536) }
