package manifest

import "testing"

// Issue 19, item 1: `serve -f` admits image names with '_' and '.' again,
// as docs/abi.md ("Images") maps wasm://embedded/<name> to
// images/wasm/<name>.wasm with no DNS-label rule.
func TestManifestImageNamesWithUnderscoreAndDot(t *testing.T) {
	_, err := Decode("chan.yaml", []byte(`
apiVersion: v1
kind: Pod
metadata: {name: chan-pod}
spec: {containers: [{name: c, image: "wasm://embedded/chan_pod"}, {name: d, image: "wasm://sd/echo.v2"}]}
`))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
}
