package abi

import "testing"

// TestSplitPodIDReadsWhatPodIDMakes checks that SplitPodID gives back the
// namespace and name PodID joined, and refuses an ID without both parts.
func TestSplitPodIDReadsWhatPodIDMakes(t *testing.T) {
	ns, name, ok := SplitPodID(PodID("kube-system", "web-1"))
	if !ok || ns != "kube-system" || name != "web-1" {
		t.Errorf("SplitPodID(PodID(kube-system, web-1)) = %q %q %v", ns, name, ok)
	}
	for _, id := range []string{"", "default", "default/", "/web", "/"} {
		if ns, name, ok := SplitPodID(id); ok {
			t.Errorf("SplitPodID(%q) = %q %q, ok; want not ok", id, ns, name)
		}
	}
	// Only the first "/" splits, as HeaderPod has always been read.
	if ns, name, ok := SplitPodID("default/a/b"); !ok || ns != "default" || name != "a/b" {
		t.Errorf(`SplitPodID("default/a/b") = %q %q %v; want "default" "a/b" true`, ns, name, ok)
	}
}
