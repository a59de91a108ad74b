package apiserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kube32/kube32/host/internal/store"
	"github.com/kube32/kube32/internal/testkit/testhttp"
)

const goodPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
"spec":{"containers":[{"name":"c","image":"wasm://embedded/echo"}]}}`

const goodService = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":{"selector":{"app":"web"},"ports":[{"port":80}]}}`

// send sends method url with body of contentType ("" for none) and the
// header lines ("Name: value"), and returns the status and body.
func send(t *testing.T, method, url, contentType, body string, header ...string) (int, string) {
	t.Helper()
	if contentType != "" {
		header = append(header, "Content-Type: "+contentType)
	}
	r := testhttp.Do(t, method, url, body, header...)
	return r.Status, r.Body
}

// TestBadInputAnswersAPreciseStatusAndChangesNothing: "Bad input gets a
// clear error and loses nothing".
func TestBadInputAnswersAPreciseStatusAndChangesNothing(t *testing.T) {
	s := store.New()
	srv, _ := bareServer(t, s, "")
	base := srv.URL + "/api/v1/namespaces/default/"
	if code, body := send(t, "POST", base+"pods", "application/json", goodPod); code != 201 {
		t.Fatalf("creating the pod: %d %s", code, body)
	}
	if code, body := send(t, "POST", base+"services", "application/json", goodService); code != 201 {
		t.Fatalf("creating the service: %d %s", code, body)
	}
	current := func() string {
		o, _ := s.Get(store.Key{Kind: "Pod", Namespace: "default", Name: "web"})
		return o.(metav1.Object).GetResourceVersion()
	}
	rv := current()
	for _, tt := range []struct {
		name                string
		method, path, ctype string
		body                string
		code                int
		reason              metav1.StatusReason
		message, causeField string
	}{
		{"malformed JSON", "POST", "pods", "application/json", `{"apiVersion": "v1", "kind": `, 400, metav1.StatusReasonBadRequest, "could not be decoded as Pod", ""},
		{"malformed YAML", "POST", "pods", "application/yaml", "kind: Pod\n  apiVersion: [v1\n", 400, metav1.StatusReasonBadRequest, "could not be decoded as Pod", ""},
		{"create of an unsupported media type", "POST", "pods", "text/html", "<p>" + goodPod, 415, metav1.StatusReasonUnsupportedMediaType, "accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf", ""},
		{"update of an unsupported media type", "PUT", "pods/web", "text/html", goodPod, 415, metav1.StatusReasonUnsupportedMediaType, "the body of the request was in an unknown format", ""},
		// docs/serve.md, "Web pages": every body of a type its endpoint does not read is 415, as kube-apiserver answers it.
		{"patch of an unsupported media type", "PATCH", "pods/web", "text/plain", `{"metadata":{"labels":{"a":"b"}}}`, 415, metav1.StatusReasonUnsupportedMediaType, "accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml", ""},
		{"patch without a media type", "PATCH", "pods/web", "", `{"metadata":{"labels":{"a":"b"}}}`, 415, metav1.StatusReasonUnsupportedMediaType, "accepted media types include: application/json-patch+json", ""},
		{"delete with DeleteOptions of an unsupported media type", "DELETE", "pods/web", "text/plain", `{"kind":"DeleteOptions","apiVersion":"v1"}`, 415, metav1.StatusReasonUnsupportedMediaType, "accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf", ""},
		{"review of an unsupported media type", "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/x-www-form-urlencoded", `{"spec":{}}`, 415, metav1.StatusReasonUnsupportedMediaType, "accepted media types include: application/json", ""},
		{"unknown kind", "POST", "pods", "application/json", `{"apiVersion":"v1","kind":"Gadget","metadata":{"name":"x"}}`, 400, metav1.StatusReasonBadRequest, `the kind in the body (Gadget) does not match the resource pods (kind Pod)`, ""},
		{"kind not matching the URL", "POST", "pods", "application/json", goodService, 400, metav1.StatusReasonBadRequest, "does not match the resource pods", ""},
		{"unknown resource", "GET", "gadgets", "", "", 404, metav1.StatusReasonNotFound, "could not find the requested resource", ""},
		{"invalid name", "POST", "pods", "application/json", strings.Replace(goodPod, `"web"`, `"Bad_Name"`, 1), 422, metav1.StatusReasonInvalid, `Pod "Bad_Name" is invalid`, "metadata.name"},
		{"invalid Service name (DNS-1035 label)", "POST", "services", "application/json", strings.Replace(goodService, `"web"`, `"1web"`, 1), 422, metav1.StatusReasonInvalid, "a DNS-1035 label", "metadata.name"},
		{"invalid image", "POST", "pods", "application/json", strings.Replace(strings.Replace(goodPod, "wasm://embedded/echo", "nginx", 1), `"web"`, `"web2"`, 1), 422, metav1.StatusReasonInvalid, "wasm://embedded/<name>", "spec.containers[0].image"},
		{"invalid Service selector", "POST", "services", "application/json", strings.Replace(strings.Replace(goodService, `"app":"web"`, `"app":"no spaces"`, 1), `"web"`, `"web2"`, 1), 422, metav1.StatusReasonInvalid, "spec.selector", "spec.selector"},
		{"invalid NetworkPolicy peer", "POST", "/apis/networking.k8s.io/v1/namespaces/default/networkpolicies", "application/json", `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np"},"spec":{"podSelector":{},"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/33"}}],"ports":[{"port":70000}]}]}}`, 422, metav1.StatusReasonInvalid, "spec.ingress[0].from[0].ipBlock.cidr", "spec.ingress[0].ports[0].port"},
		{"invalid label selector on list", "GET", "pods?labelSelector=app%3D%3D%2C%3D", "", "", 400, metav1.StatusReasonBadRequest, "labelSelector", ""},
		{"unsupported field selector", "GET", "pods?fieldSelector=spec.image%3Dx", "", "", 400, metav1.StatusReasonBadRequest, "field label not supported: spec.image", ""},
		{"stale update", "PUT", "pods/web", "application/json", strings.Replace(goodPod, `"name":"web"`, `"name":"web","resourceVersion":"1"`, 1), 409, metav1.StatusReasonConflict, "the object has been modified", ""},
		{"name not matching the URL", "PUT", "pods/web", "application/json", strings.Replace(goodPod, `"web"`, `"other"`, 1), 400, metav1.StatusReasonBadRequest, "does not match the name on the URL", ""},
		{"unknown field with fieldValidation=Strict", "POST", "pods?fieldValidation=Strict", "application/json", strings.Replace(strings.Replace(goodPod, `"spec":{`, `"spec":{"nodeNmae":"x",`, 1), `"web"`, `"web3"`, 1), 400, metav1.StatusReasonBadRequest, `unknown field "spec.nodeNmae"`, ""},
		{"already exists", "POST", "pods", "application/json", goodPod, 409, metav1.StatusReasonAlreadyExists, `pods "web" already exists`, ""},
		{"missing object", "GET", "pods/nope", "", "", 404, metav1.StatusReasonNotFound, `pods "nope" not found`, ""},
		{"server-side apply without a field manager", "PATCH", "pods/web", "application/apply-patch+yaml", goodPod, 422, metav1.StatusReasonInvalid, `PatchOptions.meta.k8s.io "" is invalid`, "fieldManager"},
		{"server-side apply of another kind", "PATCH", "pods/web?fieldManager=t", "application/apply-patch+yaml", goodService, 400, metav1.StatusReasonBadRequest, "invalid object type: /v1, Kind=Service", ""},
		{"server-side apply of an unknown field", "PATCH", "pods/web?fieldManager=t", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"nodeNmae":"x"}}`, 400, metav1.StatusReasonBadRequest, ".spec.nodeNmae: field not declared in schema", ""},
		{"force on a merge patch", "PATCH", "pods/web?force=true", "application/merge-patch+json", `{}`, 422, metav1.StatusReasonInvalid, "may not be specified for non-apply patch", "force"},
		{"create with another API version", "POST", "services", "application/json", strings.Replace(goodService, `"v1"`, `"apps/v1"`, 1), 400, metav1.StatusReasonBadRequest, "the API version in the data (apps/v1) does not match the expected API version (v1)", ""},
		{"malformed JSON patch", "PATCH", "pods/web", "application/json-patch+json", `{"op":"add"}`, 400, metav1.StatusReasonBadRequest, "applying the application/json-patch+json", ""},
		// Issue 19, item 4: a JSON patch that does not apply is a 422, as kube-apiserver answers it.
		{"JSON patch of an unknown op", "PATCH", "pods/web", "application/json-patch+json", `[{"op":"nope"}]`, 422, metav1.StatusReasonInvalid, "applying the application/json-patch+json", ""},
		{"JSON patch whose test fails", "PATCH", "pods/web", "application/json-patch+json", `[{"op":"test","path":"/metadata/name","value":"other"}]`, 422, metav1.StatusReasonInvalid, "testing value /metadata/name failed", ""},
		{"patch to an invalid object", "PATCH", "pods/web", "application/merge-patch+json", `{"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, 422, metav1.StatusReasonInvalid, "wasm://embedded/<name>", "spec.containers[0].image"},
		{"writing Endpoints (read-only)", "PUT", "endpoints/web", "application/json", `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"web"}}`, 405, metav1.StatusReasonMethodNotAllowed, "is not supported", ""},
		{"deleting Endpoints (read-only)", "DELETE", "endpoints/web", "", "", 405, metav1.StatusReasonMethodNotAllowed, "is not supported", ""},
		{"watching Endpoints", "GET", "endpoints?watch=true", "", "", 405, metav1.StatusReasonMethodNotAllowed, "watch", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			version := s.Version()
			url := base + tt.path
			if strings.HasPrefix(tt.path, "/") {
				url = srv.URL + tt.path
			}
			code, body := send(t, tt.method, url, tt.ctype, tt.body)
			var st metav1.Status
			if err := json.Unmarshal([]byte(body), &st); err != nil || st.Kind != "Status" {
				t.Fatalf("%d %q is not a Status: %v", code, body, err)
			}
			if code != tt.code || int(st.Code) != tt.code || st.Reason != tt.reason || !strings.Contains(st.Message, tt.message) {
				t.Errorf("got %d %s %q, want %d %s containing %q", code, st.Reason, st.Message, tt.code, tt.reason, tt.message)
			}
			if tt.causeField != "" {
				found := false
				if st.Details != nil {
					for _, c := range st.Details.Causes {
						found = found || c.Field == tt.causeField
					}
				}
				if !found {
					t.Errorf("details %+v name no cause in %s", st.Details, tt.causeField)
				}
			}
			if s.Version() != version || current() != rv {
				t.Errorf("the store changed: version %d -> %d", version, s.Version())
			}
		})
	}
	// Endpoints exist for reading.
	if code, body := send(t, "GET", base+"endpoints/web", "", ""); code != 200 || !strings.Contains(body, `"kind":"Endpoints"`) {
		t.Errorf("GET endpoints/web: %d %s", code, body)
	}
	if code, body := send(t, "GET", srv.URL+"/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", "", ""); code != 200 || !strings.Contains(body, `"kubernetes.io/service-name":"web"`) {
		t.Errorf("GET endpointslices: %d %s", code, body)
	}
}

func TestBearerToken(t *testing.T) {
	srv, client := bareServer(t, store.New(), "s3cret")
	if code, body := send(t, "GET", srv.URL+"/api/v1/pods", "", ""); code != 401 || !strings.Contains(body, `"reason":"Unauthorized"`) {
		t.Errorf("without the token: %d %s, want 401 Unauthorized Status", code, body)
	}
	if code, _ := send(t, "GET", srv.URL+"/api/v1/pods", "", "", "Authorization: Bearer wrong"); code != 401 {
		t.Errorf("with a wrong token: %d, want 401", code)
	}
	if code, _ := send(t, "GET", srv.URL+"/readyz", "", ""); code != 200 {
		t.Errorf("/readyz without the token: %d, want 200", code)
	}
	if _, err := client.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("client-go with the token: %v", err)
	}
}
