package manifest

import (
	"reflect"
	"testing"
)

func TestImageRunsListsEachPodOfAnImage(t *testing.T) {
	objs, err := Decode("m.yaml", []byte(`
apiVersion: v1
kind: Pod
metadata: {name: a}
spec: {containers: [{name: c, image: "wasm://embedded/x", securityContext: {capabilities: {add: [SERVICE_CALL]}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c, image: "wasm://embedded/x", securityContext: {capabilities: {add: [SERVICE_CALL, CHANNEL_IPC, SERVICE_CALL]}}}]}
---
apiVersion: v1
kind: Pod
metadata: {name: c}
spec: {containers: [{name: c, image: "wasm://embedded/y"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]ImageRun{
		"wasm://embedded/x": {{"default/a", []string{"SERVICE_CALL"}}, {"default/b", []string{"CHANNEL_IPC", "SERVICE_CALL"}}},
		"wasm://embedded/y": {{"default/c", []string{}}},
	}
	if got := ImageRuns(objs); !reflect.DeepEqual(got, want) {
		t.Fatalf("ImageRuns = %+v, want %+v", got, want)
	}
}
