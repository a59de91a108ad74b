package main

import (
	"io"
	"net/http"
	"time"
)

// podGet sends GET path to pod name through the control plane's pod port
// and returns the status, the body and how long it took.
func (s *server) podGet(name, path string) (int, string, time.Duration) {
	req, _ := http.NewRequest(http.MethodGet, s.c.PodURL()+path, nil)
	req.Header.Set("X-Kube32-Pod", "default/"+name)
	start := time.Now()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error(), time.Since(start)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), time.Since(start)
}
