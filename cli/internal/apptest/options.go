package apptest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxRetry bounds [Options] retry, repeat and max-redirs: a test run ends.
const maxRetry = 100

// options are the [Options] an entry runs with (docs/testing.md).
type options struct {
	retry          int
	retryInterval  time.Duration
	delay          time.Duration
	skip           bool
	repeat         int
	location       bool // follow redirects
	maxRedirs      int
	compressed     bool
	user           string // user:password, sent as Basic authentication
	maxTime        time.Duration
	connectTimeout time.Duration
	noCoercion     bool        // no-jsonpath-coercion: a jsonpath query is always a list
	headers        [][2]string // header: Name: value
	variables      []Field     // variable: name=value, set before the request
}

// defaultOptions are Hurl's defaults.
func defaultOptions() options {
	return options{retryInterval: time.Second, repeat: 1, maxRedirs: 50}
}

// optionKinds are the options kube32 test runs and their values: b a
// boolean, i an integer, ms a duration in milliseconds by default, s one
// in seconds, str a string, var name=value.
var optionKinds = map[string]string{
	"retry": "i", "retry-interval": "ms", "delay": "ms", "skip": "b", "repeat": "i",
	"location": "b", "location-trusted": "b", "follow-redirect": "b", "follow-redirect-trusted": "b",
	"max-redirs": "i", "compressed": "b", "user": "str", "max-time": "s", "connect-timeout": "s",
	"variable": "var", "header": "str", "verbose": "b", "very-verbose": "b",
	"http1.1": "b", "path-as-is": "b", "ipv4": "b", "insecure": "b",
	"http1.0": "b", "http2": "b", "http3": "b", "ipv6": "b", "http2-prior-knowledge": "b",
	"no-jsonpath-coercion": "b", "variables-file": "str",
}

// onlyFalse are options kube32 test accepts set false only (their
// default), with why they cannot be true. verbose, very-verbose, http1.1,
// path-as-is and ipv4 change nothing: kube32 test speaks HTTP/1.1 to
// 127.0.0.1 and sends paths as written.
var onlyFalse = map[string]string{
	"insecure":              "the cluster's Ingress answers plain HTTP: there is no certificate to check",
	"http1.0":               "kube32 test speaks HTTP/1.1",
	"http2":                 "kube32 test speaks HTTP/1.1 to the Ingress",
	"http3":                 "kube32 test speaks HTTP/1.1 to the Ingress",
	"http2-prior-knowledge": "kube32 test speaks HTTP/1.1 to the Ingress",
	"ipv6":                  "the cluster listens on 127.0.0.1",
}

// refusedOptions are Hurl's options that make no sense against a local
// cluster (curl's certificates, proxies, name resolution, …), and why.
var refusedOptions = map[string]string{
	"cacert": "TLS", "cert": "TLS", "key": "TLS", "pinnedpubkey": "TLS", "ssl-no-revoke": "TLS",
	"proxy": "a proxy", "noproxy": "a proxy", "resolve": "name resolution", "connect-to": "name resolution",
	"unix-socket": "a Unix socket", "aws-sigv4": "AWS signing", "netrc": "a .netrc file",
	"netrc-file": "a .netrc file", "netrc-optional": "a .netrc file", "limit-rate": "curl's rate limit",
	"output": "writing files", "digest": "Digest authentication", "ntlm": "NTLM authentication", "negotiate": "Negotiate authentication",
}

// checkOption checks an [Options] line as it is written; one whose value
// holds a {{variable}} is checked again when it runs.
func checkOption(f Field) error {
	if why, ok := refusedOptions[f.Name]; ok {
		return fmt.Errorf("option %s is not supported by kube32 test: it is curl's, for %s, which a local cluster has no use for (docs/testing.md)", f.Name, why)
	}
	if _, ok := optionKinds[f.Name]; !ok {
		return fmt.Errorf("option %q is not supported by kube32 test (docs/testing.md lists %s)", f.Name, known(optionKinds))
	}
	if variable.MatchString(f.Value) && optionKinds[f.Name] != "str" && optionKinds[f.Name] != "var" {
		return nil
	}
	o := defaultOptions()
	return o.apply(f.Name, f.Value)
}

// apply sets one option from its value (variables expanded).
func (o *options) apply(name, value string) error {
	kind := optionKinds[name]
	var b bool
	var n int
	var d time.Duration
	var err error
	switch kind {
	case "b":
		b, err = strconv.ParseBool(value)
		if err != nil || (value != "true" && value != "false") {
			return fmt.Errorf("%s: %q: want true or false", name, value)
		}
	case "i":
		n, err = strconv.Atoi(value)
		if err != nil || n < -1 || n > maxRetry {
			return fmt.Errorf("%s: %q: want a count from 0 to %d (or -1, as many as %d)", name, value, maxRetry, maxRetry)
		}
		if n == -1 {
			n = maxRetry
		}
	case "ms", "s":
		d, err = duration(value, kind)
		if err != nil || d < 0 || d > time.Minute {
			unit := "milliseconds"
			if kind == "s" {
				unit = "seconds"
			}
			return fmt.Errorf("%s: %q: want a duration from 0 to 1m (a number of %s, or 500ms, 2s, 1m)", name, value, unit)
		}
	}
	if why, ok := onlyFalse[name]; ok && b {
		return fmt.Errorf("option %s: true is not supported by kube32 test: %s (docs/testing.md)", name, why)
	}
	switch name {
	case "retry":
		o.retry = n
	case "retry-interval":
		if d <= 0 {
			return fmt.Errorf("retry-interval: %q: want a duration above 0", value)
		}
		o.retryInterval = d
	case "delay":
		o.delay = d
	case "skip":
		o.skip = b
	case "repeat":
		if n < 1 {
			n = 1
		}
		o.repeat = n
	case "location", "location-trusted", "follow-redirect", "follow-redirect-trusted":
		o.location = b
	case "no-jsonpath-coercion":
		o.noCoercion = b
	case "variables-file":
		if strings.TrimSpace(value) == "" {
			return fmt.Errorf("variables-file: want a file of name=value lines")
		}
	case "max-redirs":
		o.maxRedirs = n
	case "compressed":
		o.compressed = b
	case "max-time":
		o.maxTime = d
	case "connect-timeout":
		o.connectTimeout = d
	case "user":
		if !strings.Contains(value, ":") {
			return fmt.Errorf("user: %q: want user:password", value)
		}
		o.user = value
	case "header":
		hname, hvalue, ok := strings.Cut(value, ":")
		if !ok || strings.TrimSpace(hname) == "" {
			return fmt.Errorf("header: %q: want Name: value", value)
		}
		o.headers = append(o.headers, [2]string{strings.TrimSpace(hname), strings.TrimSpace(hvalue)})
	case "variable":
		vname, _, ok := strings.Cut(value, "=")
		if !ok || !variableName.MatchString(strings.TrimSpace(vname)) {
			return fmt.Errorf("variable: %q: want name=value", value)
		}
		o.variables = append(o.variables, Field{Name: strings.TrimSpace(vname), Value: value})
	}
	return nil
}

// duration reads 500, 500ms, 2s or 1m; a bare number is in milliseconds
// (ms) or seconds (s), as Hurl reads each option.
func duration(s, unit string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if unit == "s" {
			return time.Duration(n) * time.Second, nil
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	return time.ParseDuration(s)
}

// variableValue reads a variable's value as Hurl types it: true, false,
// null, a number, a "quoted string", or else the text as a string.
func variableValue(s string) any {
	s = strings.TrimSpace(s)
	switch s {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if n := parseNumber(s); n != nil && validNumber(s) {
		return n
	}
	if len(s) >= 2 && s[0] == '"' {
		if v, n, err := unquote(s, '"'); err == nil && n == len(s) {
			return v
		}
	}
	return s
}
