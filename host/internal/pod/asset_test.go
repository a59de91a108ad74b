package pod

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/testkit/testpods"
)

func gz(t *testing.T, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}

func TestRespAsset(t *testing.T) {
	appGz := gz(t, "console.log('gz')")
	onlyGz := gz(t, "body{}")
	bundle := fstest.MapFS{
		"index.html":      {Data: []byte("<h1>hi</h1>")},
		"js/app.js":       {Data: []byte("console.log('plain')")},
		"js/app.js.gz":    {Data: []byte(appGz)},
		"css/only.css.gz": {Data: []byte(onlyGz)},
	}
	url := serve(t, startPod(t, onePage(t, "probe"), func(c *Config) { c.Assets = bundle }))

	noent, inval := testpods.Code(abi.ErrNoEnt), testpods.Code(abi.ErrInval)
	tests := []struct {
		name, method, path, acceptEncoding string
		status                             int
		body, contentType, encoding        string
	}{
		{"plain file", "GET", "index.html", "", 200, "<h1>hi</h1>", "text/html; charset=utf-8", ""},
		{"gz preferred", "GET", "js/app.js", "gzip, deflate", 200, appGz, "text/javascript; charset=utf-8", "gzip"},
		{"gz refused by q=0", "GET", "js/app.js", "gzip;q=0", 200, "console.log('plain')", "text/javascript; charset=utf-8", ""},
		{"plain without gzip", "GET", "js/app.js", "", 200, "console.log('plain')", "text/javascript; charset=utf-8", ""},
		{"only gz, gzip accepted", "GET", "css/only.css", "gzip", 200, onlyGz, "text/css; charset=utf-8", "gzip"},
		{"only gz, gzip not accepted", "GET", "css/only.css", "", 406, "", "", ""},
		{"HEAD sends no body", "HEAD", "index.html", "", 200, "", "text/html; charset=utf-8", ""},
		{"missing file", "GET", "nope.txt", "", 404, "asset=" + noent + "\n", "", ""},
		{"dot-dot", "GET", "../secret", "", 404, "asset=" + inval + "\n", "", ""},
		{"absolute", "GET", "/etc/passwd", "", 404, "asset=" + inval + "\n", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.acceptEncoding != "" {
				hdr = []string{"Accept-Encoding", tt.acceptEncoding}
			}
			res := do(t, tt.method, url+"/asset?"+tt.path, "", hdr...)
			if res.status != tt.status {
				t.Fatalf("status %d, want %d (%q)", res.status, tt.status, res.body)
			}
			if tt.status != 406 && res.body != tt.body {
				t.Errorf("body %q, want %q", res.body, tt.body)
			}
			if tt.contentType != "" && res.header.Get("Content-Type") != tt.contentType {
				t.Errorf("Content-Type %q, want %q", res.header.Get("Content-Type"), tt.contentType)
			}
			if got := res.header.Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.encoding)
			}
			// Queued headers go out with the file, and survive a NOENT for the fallback.
			if res.header.Get("X-Queued") != "kept" {
				t.Errorf("queued X-Queued header lost: %v", res.header)
			}
			if tt.status == 200 && res.header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Vary %q", res.header.Get("Vary"))
			}
			if tt.method == "HEAD" && res.header.Get("Content-Length") != "11" {
				t.Errorf("HEAD Content-Length %q, want 11", res.header.Get("Content-Length"))
			}
		})
	}
}

func TestRespAssetWithoutBundleIsNoEnt(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "probe"), nil))
	res := get(t, url+"/asset?index.html")
	if res.status != http.StatusNotFound || res.body != "asset="+testpods.Code(abi.ErrNoEnt)+"\n" {
		t.Fatalf("%d %q", res.status, res.body)
	}
}
