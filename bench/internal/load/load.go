// Package load is the HTTP load generator the bench programs share, so that
// kube32 and its baseline are measured with the very same client.
package load

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what one load run measured.
type Result struct {
	Rate   float64 // 200 answers per second
	Errors int64   // failed requests and non-200 answers
}

// Client is a keep-alive client with one idle connection per concurrent
// client and no transparent gzip decoding, so that the bytes on the wire
// are what is measured.
func Client(concurrency int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: concurrency,
		DisableCompression:  true,
	}}
}

// Run sends the requests newRequest makes from concurrency goroutines
// sharing client, for d.
func Run(client *http.Client, newRequest func() (*http.Request, error), d time.Duration, concurrency int) Result {
	var done, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				req, err := newRequest()
				if err != nil {
					failed.Add(1)
					continue
				}
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return Result{Rate: float64(done.Load()) / d.Seconds(), Errors: failed.Load()}
}
