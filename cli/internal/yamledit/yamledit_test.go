package yamledit

import (
	"strings"
	"testing"
)

var pod = Entry{Fields: []Field{{"name", "api"}, {"language", "c"}, {"source", "pods/api"}}}

// Append inserts the entry and leaves every other byte as it was:
// comments, blank lines, key order, indentation and the list's style.
func TestAppendKeepsEveryOtherByte(t *testing.T) {
	cases := []struct {
		name, key string
		entry     Entry
		in, want  string
	}{
		{"block list, entry's comment kept with it", "pods", pod,
			"# my app\nname: shop   # the name\n\npods:\n    - source: pods/shop   # first\n      name: shop\n      language: go\n      # cflags: [-O2]\n\n# bundles next\nbundles: []\n",
			"# my app\nname: shop   # the name\n\npods:\n    - source: pods/shop   # first\n      name: shop\n      language: go\n      # cflags: [-O2]\n    - source: pods/api\n      name: api\n      language: c\n\n# bundles next\nbundles: []\n"},
		{"flow list on one line", "manifests", Entry{Scalar: "manifests/api.yaml"},
			"name: shop\nmanifests: [app.yaml, \"b.yaml\"] # mine\n",
			"name: shop\nmanifests: [app.yaml, \"b.yaml\", manifests/api.yaml] # mine\n"},
		{"empty flow list", "bundles", Entry{Scalar: "x"},
			"bundles: []\n", "bundles: [x]\n"},
		{"flow list over lines, trailing comma", "manifests", Entry{Scalar: "c.yaml"},
			"manifests: [\n  a.yaml,\n  b.yaml,\n]\nname: x\n",
			"manifests: [\n  a.yaml,\n  b.yaml, c.yaml\n]\nname: x\n"},
		{"missing key, file without final newline", "pods", pod,
			"name: shop\nbundles:\n- name: site\n  dir: site",
			"name: shop\nbundles:\n- name: site\n  dir: site\npods:\n- name: api\n  language: c\n  source: pods/api\n"},
		{"key without a value", "pods", pod,
			"pods: # later\nname: shop\n",
			"pods: # later\n  - name: api\n    language: c\n    source: pods/api\nname: shop\n"},
		{"a value YAML would read as another type is quoted", "manifests", Entry{Scalar: "123"},
			"manifests:\n  - a.yaml\n", "manifests:\n  - a.yaml\n  - \"123\"\n"},
		{"CRLF line breaks", "manifests", Entry{Scalar: "b.yaml"},
			"manifests:\r\n  - a.yaml\r\nname: x\r\n", "manifests:\r\n  - a.yaml\r\n  - b.yaml\r\nname: x\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Append([]byte(c.in), c.key, c.entry)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// What Append cannot edit in place is refused, naming the key, never
// rewritten some other way.
func TestAppendRefusesWhatItCannotEditInPlace(t *testing.T) {
	for _, in := range []string{"pods: 3\n", "pods: {a: b}\n", "pods: null\n"} {
		if _, err := Append([]byte(in), "pods", pod); err == nil || !strings.Contains(err.Error(), "pods") {
			t.Errorf("%q: err = %v, want one naming pods", in, err)
		}
	}
	if _, err := Append([]byte("- a\n"), "pods", pod); err == nil {
		t.Error("a file that is a list: no error")
	}
	// A flow mapping gets no block list at its end.
	if _, err := Append([]byte("{name: shop}\n"), "pods", pod); err == nil || !strings.Contains(err.Error(), `add "pods:" yourself`) {
		t.Errorf("flow mapping without pods: err = %v", err)
	}
	// A second document would get the list: refused.
	if _, err := Append([]byte("name: shop\n---\nname: other\n"), "pods", pod); err == nil {
		t.Error("two documents: no error")
	}
}
