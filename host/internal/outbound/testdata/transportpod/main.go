// Command transportpod is the test pod of package call: it fetches the URL
// in its request's query with net/http's client over k32http.Transport
// and reports what it got, one "key=value" line each. Built by
// host/internal/call/pod_test.go with GOOS=wasip1 GOARCH=wasm.
package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	k32 "github.com/kube32/kube32/sdk/go"
	"github.com/kube32/kube32/sdk/go/k32http"
)

func init() {
	k32http.Handle(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		buffer, _ := strconv.Atoi(q.Get("buffer"))
		timeout, _ := time.ParseDuration(q.Get("timeout"))
		client := &http.Client{Transport: k32http.Transport{Buffer: buffer, Header: []string{"X-Served-By"}}}
		ctx := r.Context()
		if timeout > 0 {
			// A context deadline rather than Client.Timeout, whose error
			// hides the k32.Errno.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		req, _ := http.NewRequestWithContext(ctx, q.Get("method"), q.Get("url"), r.Body)
		req.Header.Set("X-Kube32-Pod", "forged/pod")
		req.Header.Set("X-Test", "from-pod")
		resp, err := client.Do(req)
		if err != nil {
			var code k32.Errno
			errors.As(err, &code)
			io.WriteString(w, "err="+code.Name()+"\n")
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		io.WriteString(w, "status="+strconv.Itoa(resp.StatusCode)+"\n")
		io.WriteString(w, "served-by="+resp.Header.Get("X-Served-By")+"\n")
		io.WriteString(w, "body="+string(body)+"\n")
	}))
}

func main() {}
