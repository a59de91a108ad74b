package main

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

type result struct {
	rate   float64
	errors int64
}

// newClient is the one client both servers are loaded with: keep-alive,
// one idle connection per concurrent client, and no transparent gzip
// decoding, so that the bytes on the wire are what is measured.
func newClient(concurrency int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: concurrency,
		DisableCompression:  true,
	}}
}

func get(client *http.Client, url string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	return client.Do(req)
}

// fetch returns the body and Content-Encoding of one GET.
func fetch(url string) ([]byte, string, error) {
	client := newClient(1)
	defer client.CloseIdleConnections()
	resp, err := get(client, url)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, resp.Header.Get("Content-Encoding"), err
}

// load sends GET requests from concurrency clients for d.
func load(url string, d time.Duration, concurrency int) result {
	client := newClient(concurrency)
	defer client.CloseIdleConnections()
	var done, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := 0; i < concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				resp, err := get(client, url)
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
	return result{rate: float64(done.Load()) / d.Seconds(), errors: failed.Load()}
}
