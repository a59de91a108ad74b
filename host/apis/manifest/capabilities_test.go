package manifest

import (
	"reflect"
	"testing"
)

func TestAddedCapabilitiesUnitesThePodsOfAnImage(t *testing.T) {
	objs, err := Decode("m.yaml", []byte(`
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c, image: "wasm://embedded/x", securityContext: {capabilities: {add: [SERVICE_CALL]}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c, image: "wasm://embedded/x", securityContext: {capabilities: {add: [CHANNEL_IPC, SERVICE_CALL]}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {containers: [{name: c, image: "wasm://embedded/y"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"wasm://embedded/x": {"CHANNEL_IPC", "SERVICE_CALL"}, "wasm://embedded/y": {}}
	if got := AddedCapabilities(objs); !reflect.DeepEqual(got, want) {
		t.Fatalf("AddedCapabilities = %q, want %q", got, want)
	}
}
