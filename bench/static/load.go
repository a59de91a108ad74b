package main

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/kube32/kube32/bench/internal/load"
)

// gzipGet is a GET that accepts gzip, as browsers send it.
func gzipGet(url string) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept-Encoding", "gzip")
	return req, nil
}

// fetch returns the body and Content-Encoding of one GET.
func fetch(url string) ([]byte, string, error) {
	client := load.Client(1)
	defer client.CloseIdleConnections()
	req, err := gzipGet(url)
	if err != nil {
		return nil, "", err
	}
	resp, err := client.Do(req)
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

// loadGet sends gzip GETs of url from concurrency clients for d.
func loadGet(url string, d time.Duration, concurrency int) load.Result {
	client := load.Client(concurrency)
	defer client.CloseIdleConnections()
	return load.Run(client, func() (*http.Request, error) { return gzipGet(url) }, d, concurrency)
}
