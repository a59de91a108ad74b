package manifest

import (
	"strings"
	"testing"
)

// Issue 19, item 3: `serve -f` refuses a document that gives a key twice,
// as the API does with fieldValidation=Strict, naming the line, rather than
// running the object with the last value.
func TestManifestDuplicateKeysAreRefused(t *testing.T) {
	_, err := Decode("dup.yaml", []byte(`apiVersion: v1
kind: Pod
metadata:
  name: a
  name: b
spec: {containers: [{name: c, image: "wasm://embedded/echo"}]}
`))
	if err == nil || !strings.Contains(err.Error(), `line 5: key "name" already set in map`) || !strings.Contains(err.Error(), "dup.yaml: document 1") {
		t.Fatalf("Decode = %v, want the duplicate key refused with its file, document and line", err)
	}
}
