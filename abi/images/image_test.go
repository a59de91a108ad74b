package images

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseImage(t *testing.T) {
	valid := []struct {
		ref            string
		storage        Storage
		module, bundle string
	}{
		{"wasm://embedded/echo", Firmware, "images/wasm/echo.wasm", "images/web/echo"},
		{"wasm://sd/thumb", SD, "kube32/images/thumb.wasm", "kube32/images/thumb"},
		{"wasm://embedded/a-b-1", Firmware, "images/wasm/a-b-1.wasm", "images/web/a-b-1"},
	}
	for _, tc := range valid {
		img, err := ParseImage(tc.ref)
		if err != nil {
			t.Errorf("ParseImage(%q): %v", tc.ref, err)
			continue
		}
		if img.Storage != tc.storage || img.ModulePath() != tc.module || img.BundlePath() != tc.bundle || img.String() != tc.ref {
			t.Errorf("ParseImage(%q) = %+v module %s bundle %s", tc.ref, img, img.ModulePath(), img.BundlePath())
		}
	}
	invalid := map[string]string{
		"echo":                        `must start with "wasm://"`,
		"http://embedded/echo":        `must start with "wasm://"`,
		"wasm://flash/echo":           `unknown storage "flash" (embedded or sd)`,
		"wasm://embedded":             "no image name",
		"wasm://embedded/":            "no image name",
		"wasm://sd/a/b":               "must be one path element",
		"wasm://sd/..":                "must use only lowercase letters",
		"wasm://sd/Echo":              "must use only lowercase letters",
		"wasm://sd/echo.wasm.":        "must use only lowercase letters",
		"wasm://embedded/../../etc/x": "must be one path element",
		"wasm://embedded/" + strings.Repeat("a", 64): "longer than 63",
	}
	for ref, want := range invalid {
		_, err := ParseImage(ref)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ref) {
			t.Errorf("ParseImage(%q) = %v, want an error naming the reference and saying %q", ref, err, want)
		}
	}
}

func TestBundleDir(t *testing.T) {
	if got := BundleDir("site"); got != "images/web/site" {
		t.Errorf("BundleDir = %q", got)
	}
	if got := InRoot(SD, "kube32/images/x.wasm"); got != "sd/kube32/images/x.wasm" {
		t.Errorf("InRoot = %q", got)
	}
}

func TestResolveModule(t *testing.T) {
	root := fstest.MapFS{
		"firmware/images/wasm/echo.wasm":      {Data: []byte("echo")},
		"firmware/images/web/echo/index.html": {Data: []byte("<p>")},
		"sd/kube32/images/thumb.wasm":         {Data: []byte("thumb")},
		"firmware/images/wasm/bare.wasm":      {Data: []byte("bare")},
	}
	wasm, assets, err := ResolveModule(root, "wasm://embedded/echo")
	if err != nil || string(wasm) != "echo" || assets == nil {
		t.Fatalf("echo: %q %v %v", wasm, assets, err)
	}
	if b, err := fs.ReadFile(assets, "index.html"); err != nil || string(b) != "<p>" {
		t.Errorf("echo asset: %q %v", b, err)
	}
	wasm, assets, err = ResolveModule(root, "wasm://sd/thumb")
	if err != nil || string(wasm) != "thumb" || assets != nil {
		t.Errorf("thumb: %q %v %v", wasm, assets, err)
	}
	if _, _, err := ResolveModule(root, "wasm://sd/echo"); err == nil || !strings.Contains(err.Error(), "sd/kube32/images/echo.wasm not found") {
		t.Errorf("missing module: %v", err)
	}
	if _, _, err := ResolveModule(root, "oci://x"); err == nil {
		t.Error("bad reference accepted")
	}
}
