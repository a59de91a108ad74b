package apiauth

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestBodiesOfOtherMediaTypesAreRefused415 is the rule of docs/serve.md,
// "Web pages", for each body of the API port: the media types its clients
// send (with parameters such as charset) reach the handler; any other,
// among them the three a page of another site may send without a
// preflight (text/plain, a form, multipart), is answered 415 as
// kube-apiserver answers it, naming the accepted types, and the handler is
// never called. A body without Content-Type is read as the first type,
// as kube-apiserver reads one as JSON, where kube-apiserver does so, unless
// a browser sent it (with Origin).
func TestBodiesOfOtherMediaTypesAreRefused415(t *testing.T) {
	pageTypes := []string{"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}
	for _, c := range []struct {
		name     string
		body     Body
		accepted []string
		refused  []string
		untyped  bool // a body without Content-Type from a client that is not a browser is read
	}{
		{"object", ObjectBody, []string{"application/json", "application/json; charset=utf-8", "application/yaml", "application/vnd.kubernetes.protobuf"},
			append([]string{"application/merge-patch+json", "text/html", "application/cbor", "json"}, pageTypes...), true},
		{"patch", PatchBody, []string{"application/json-patch+json", "application/merge-patch+json; charset=utf-8", "application/strategic-merge-patch+json", "application/apply-patch+yaml"},
			append([]string{"application/json", "application/yaml", "application/apply-patch+cbor"}, pageTypes...), false},
		{"channel message", ChannelBody, []string{ChannelContentType, "application/json"},
			append([]string{"application/yaml"}, pageTypes...), true},
		{"uplink", UplinkBody, []string{"application/json"},
			append([]string{"application/octet-stream"}, pageTypes...), true},
		{"login", LoginBody, []string{"application/x-www-form-urlencoded", "application/x-www-form-urlencoded;charset=UTF-8"},
			[]string{"text/plain", "multipart/form-data; boundary=x", "application/json"}, false},
		{"egress", EgressBody, []string{"message/http"},
			append([]string{"application/json", "application/octet-stream"}, pageTypes...), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls int
			srv := httptest.NewServer(RequireBody(c.body, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				w.WriteHeader(http.StatusNoContent)
			})))
			t.Cleanup(srv.Close)
			post := func(contentType, origin string) (int, string) {
				t.Helper()
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"a":1}`))
				if contentType != "" {
					req.Header.Set("Content-Type", contentType)
				}
				if origin != "" {
					req.Header.Set("Origin", origin)
				}
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			for _, ct := range c.accepted {
				if code, body := post(ct, ""); code != http.StatusNoContent {
					t.Errorf("Content-Type %q: %d %s, want it read", ct, code, body)
				}
			}
			refuse := func(ct, origin string) {
				t.Helper()
				before := calls
				code, body := post(ct, origin)
				var st metav1.Status
				if err := json.Unmarshal([]byte(body), &st); err != nil || code != http.StatusUnsupportedMediaType || st.Code != http.StatusUnsupportedMediaType ||
					st.Reason != metav1.StatusReasonUnsupportedMediaType ||
					!strings.HasPrefix(st.Message, "the body of the request was in an unknown format - accepted media types include: "+strings.Join(c.body.types, ", ")) {
					t.Errorf("Content-Type %q (Origin %q): %d %s, want kube-apiserver's 415 UnsupportedMediaType Status", ct, origin, code, body)
				}
				if calls != before {
					t.Errorf("Content-Type %q (Origin %q): the handler was called", ct, origin)
				}
			}
			for _, ct := range c.refused {
				refuse(ct, "")
				refuse(ct, "http://127.0.0.1:8000")
			}
			refuse("", "http://127.0.0.1:8000")
			refuse("", "null")
			if c.untyped {
				if code, body := post("", ""); code != http.StatusNoContent {
					t.Errorf("no Content-Type from a client that is not a browser: %d %s, want it read as %s", code, body, c.body.types[0])
				}
			} else {
				refuse("", "")
			}
		})
	}
}
