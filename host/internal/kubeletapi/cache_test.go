package kubeletapi

import (
	"strconv"
	"testing"
	"time"
)

// The review cache keeps each answer until its own expiry and at most max
// answers, the oldest going first (abi.KubeletReviewCacheMax), so that
// endless new tokens cost a bounded memory.
func TestReviewCacheIsBoundedAndExpires(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newCache[bool](3)
	c.now = func() time.Time { return now }
	for i := range 5 {
		c.put(strconv.Itoa(i), true, time.Minute)
	}
	if c.len() != 3 {
		t.Errorf("%d answers kept, want at most 3", c.len())
	}
	for key, want := range map[string]bool{"0": false, "1": false, "2": true, "4": true} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("answer %s kept: %v, want %v (the oldest go first)", key, ok, want)
		}
	}
	c.put("short", false, 30*time.Second)
	now = now.Add(30 * time.Second)
	if _, ok := c.get("short"); ok {
		t.Error("an answer is still kept at its expiry")
	}
	if _, ok := c.get("4"); !ok {
		t.Error("an answer is gone before its expiry")
	}
}
