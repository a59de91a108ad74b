package cluster

import (
	"bufio"
	"context"
	"net/http"
	"testing"
)

// A watch in flight must not hold Close up: serve stops at once even while
// `kubectl get -w` runs.
func TestCloseEndsWatches(t *testing.T) {
	c, err := Start(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(c.APIURL() + "/api/v1/namespaces?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !bufio.NewScanner(resp.Body).Scan() {
		t.Fatal("the watch sent no event for the default namespace")
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close with a watch open: %v", err)
	}
}
