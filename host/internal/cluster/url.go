package cluster

import (
	"fmt"
	"net/url"
)

// parseHTTPURL reads the control plane's API URL, http://HOST[:PORT].
func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("API server URL %q: want http://HOST:PORT", s)
	}
	return u, nil
}
