package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/internal/oci"
	"github.com/kube32/kube32/internal/testkit/testenv"
	"github.com/kube32/kube32/internal/testkit/testregistry"
)

// siteFiles is a small bundle as kube32 build writes one: a page, a
// stylesheet with its precompressed variants, a file in a subfolder.
var siteFiles = map[string]string{
	"index.html":        "<h1>site</h1>",
	"css/app.css":       "body{color:red}",
	"css/app.css.gz":    "not really gzip, but bytes all the same",
	"css/app.css.br":    "not really brotli",
	"img/logo.svg":      "<svg/>",
	".well-known/a.txt": "a",
}

func writeSite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testenv.WriteFiles(t, dir, siteFiles)
	return dir
}

// A bundle pushes as an OCI 1.1 artifact (docs/oci.md, "Bundles"), as
// crane reads it back: artifactType application/vnd.kube32.bundle.v1, the
// empty config and one tar layer. The same files give the same digest
// wherever and whenever they were written, and a pull gives them back.
func TestPushBundleWritesOneArtifactDigestPerSetOfFiles(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	dir := writeSite(t)
	first, err := oci.PushBundle(ctx, dir, reg.Host+"/web/site:v1", false)
	if err != nil {
		t.Fatal(err)
	}
	raw, m := testregistry.Manifest(t, reg.Host+"/web/site:v1")
	if m.MediaType != ocispec.MediaTypeImageManifest || m.ArtifactType != "application/vnd.kube32.bundle.v1" ||
		m.Config.MediaType != ocispec.MediaTypeEmptyJSON || m.Config.Digest != ocispec.DescriptorEmptyJSON.Digest ||
		len(m.Layers) != 1 || m.Layers[0].MediaType != "application/vnd.kube32.bundle.layer.v1.tar" {
		t.Fatalf("manifest %s", raw)
	}
	if digest.FromBytes(raw).String() != first {
		t.Errorf("PushBundle returned %s, the manifest's digest is %s", first, digest.FromBytes(raw))
	}

	// The same files copied elsewhere, with other times and modes.
	other := writeSite(t)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	filepath.WalkDir(other, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			os.Chtimes(p, old, old)
			os.Chmod(p, 0o600)
		}
		return err
	})
	second, err := oci.PushBundle(ctx, other, reg.Host+"/web/copy:v2", false)
	if err != nil || second != first {
		t.Fatalf("the same files pushed again: %s %v, want %s", second, err, first)
	}

	b, err := (&oci.Puller{Dir: t.TempDir()}).PullBundle(ctx, reg.Host+"/web/copy:v2")
	if err != nil {
		t.Fatal(err)
	}
	byDigest, err := (&oci.Puller{}).PullBundle(ctx, reg.Host+"/web/site@"+first)
	if err != nil || byDigest.Layer != b.Layer {
		t.Errorf("pull by digest: layer %s, %v; want %s", byDigest.Layer, err, b.Layer)
	}
	if b.Manifest.String() != first || b.Layer != m.Layers[0].Digest {
		t.Errorf("pulled manifest %s layer %s, want %s %s", b.Manifest, b.Layer, first, m.Layers[0].Digest)
	}
	got := map[string]string{}
	fs.WalkDir(b.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(b.Files, p)
			got[p] = string(data)
		}
		return err
	})
	if len(got) != len(siteFiles) {
		t.Errorf("pulled %d files, pushed %d: %v", len(got), len(siteFiles), got)
	}
	for name, data := range siteFiles {
		if got[name] != data {
			t.Errorf("pulled %s = %q, pushed %q", name, got[name], data)
		}
	}
}

// push refuses, naming the file and the rule, a folder that is not a
// bundle: no files, a symbolic link, an unsafe name, a path or a size
// past the limits of abi/limits.go; and it pushes nothing.
func TestPushBundleRefusesWhatIsNotABundle(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	ref := reg.Host + "/web/bad:v1"

	link := writeSite(t)
	if err := os.Symlink("/etc/passwd", filepath.Join(link, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	backslash := writeSite(t)
	testenv.WriteFiles(t, backslash, map[string]string{`a\b.txt`: "x"})
	control := writeSite(t)
	testenv.WriteFiles(t, control, map[string]string{"a\x01.txt": "x"})
	long := writeSite(t)
	longName := strings.Repeat("d", 200) + "/" + strings.Repeat("f", 60)
	testenv.WriteFiles(t, long, map[string]string{longName: "x"})
	big := writeSite(t)
	f, err := os.Create(filepath.Join(big, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(abi.OCIBundleBytesMax + 1) // sparse: no disk taken
	f.Close()

	many := t.TempDir()
	for i := 0; i <= abi.OCIBundleFilesMax; i++ {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("f%05d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct{ dir, want string }{
		{t.TempDir(), "holds no files"},
		{many, "OCIBundleFilesMax"},
		{link, "leak.txt is not a regular file"},
		{backslash, "backslash"},
		{control, "control character"},
		{long, "OCIBundlePathMax"},
		{big, "huge.bin brings the bundle past OCIBundleBytesMax"},
		{filepath.Join(link, "missing"), "missing"},
	} {
		if _, err := oci.PushBundle(ctx, tc.dir, ref, false); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PushBundle(%s): %v, want an error saying %q", tc.dir, err, tc.want)
		}
	}
	if _, err := crane.Manifest(ref, crane.Insecure); err == nil {
		t.Error("a refused push left a manifest")
	}
}

// A layer whose bytes do not match its digest is refused and nothing of it
// is cached; a Puller over the disk cache of a good pull gets the bundle
// back without the registry (which now sends other bytes).
func TestPullBundleRefusesATamperedLayerAndCachesByDigest(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	good, tampered := reg.Host+"/web/good:v1", reg.Host+"/web/tampered:v1"
	dir := writeSite(t)
	if _, err := oci.PushBundle(ctx, dir, good, false); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFiles(t, dir, map[string]string{"extra.txt": "another layer"})
	if _, err := oci.PushBundle(ctx, dir, tampered, false); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if _, err := (&oci.Puller{Dir: cache}).PullBundle(ctx, good); err != nil {
		t.Fatal(err)
	}
	reg.Tamper()
	p := &oci.Puller{Dir: cache}
	_, err := p.PullBundle(ctx, tampered)
	if err == nil || !strings.Contains(err.Error(), tampered) || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("pull of a tampered bundle: %v, want a digest mismatch naming %s", err, tampered)
	}
	if _, err := (&oci.Puller{Dir: cache}).PullBundle(ctx, tampered); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Errorf("a new Puller over the same cache: %v, want a pull that fails again, nothing of the tampered bundle cached", err)
	}
	b, err := p.PullBundle(ctx, good)
	if err != nil {
		t.Fatalf("a bundle in the disk cache: %v", err)
	}
	if data, err := fs.ReadFile(b.Files, "css/app.css"); err != nil || string(data) != siteFiles["css/app.css"] {
		t.Errorf("cached css/app.css = %q, %v", data, err)
	}
}

// tarOf writes a tar of the given headers, each file's body its name.
func tarOf(t *testing.T, hdrs ...*tar.Header) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range hdrs {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(h.Name))
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(h.Name))
		}
	}
	tw.Close()
	return buf.Bytes()
}

func file(name string) *tar.Header { return &tar.Header{Typeflag: tar.TypeReg, Name: name} }

func manyFiles(n int) []*tar.Header {
	hdrs := make([]*tar.Header, n)
	for i := range hdrs {
		hdrs[i] = file(fmt.Sprintf("f%05d", i))
	}
	return hdrs
}

// A registry's layer is anyone's: a pull refuses, naming the entry, a tar
// whose entries leave the bundle (.. or an absolute path), are not regular
// files (links), repeat or clash, and a manifest that is not a bundle's.
func TestPullBundleRefusesLayersThatLeaveTheBundle(t *testing.T) {
	ctx := context.Background()
	reg := testregistry.Start(t, "127.0.0.1:0")
	for i, tc := range []struct {
		layer []byte
		want  string
	}{
		{tarOf(t, file("index.html"), file("../../etc/cron.d/evil")), `path "../../etc/cron.d/evil" is not a relative path inside the bundle`},
		{tarOf(t, file("index.html"), file("css/../../evil")), `"css/../../evil" is not a relative path`},
		{tarOf(t, file("/etc/passwd")), `"/etc/passwd" is not a relative path`},
		{tarOf(t, file("index.html"), &tar.Header{Typeflag: tar.TypeDir, Name: "../up/"}), "folder path"},
		{tarOf(t, file("index.html"), &tar.Header{Typeflag: tar.TypeSymlink, Name: "leak", Linkname: "/etc/passwd"}), `"leak" is not a regular file`},
		{tarOf(t, file("index.html"), &tar.Header{Typeflag: tar.TypeLink, Name: "hard", Linkname: "index.html"}), `"hard" is not a regular file`},
		{tarOf(t, file("a.txt"), file("a.txt")), `"a.txt" is in the layer twice`},
		{tarOf(t, file("a"), file("a/b")), `"a" is a file and a folder`},
		{tarOf(t, &tar.Header{Typeflag: tar.TypeDir, Name: "empty/"}), "no files"},
		{tarOf(t, manyFiles(abi.OCIBundleFilesMax+1)...), "OCIBundleFilesMax"},
		{[]byte("not a tar at all, but long enough to be read as a header block or not"), "bundle layer"},
	} {
		ref := reg.Host + "/web/bad" + string(rune('a'+i)) + ":v1"
		if _, err := oci.PushBundleLayer(ctx, tc.layer, ref, false); err != nil {
			t.Fatal(err)
		}
		_, err := (&oci.Puller{Dir: t.TempDir()}).PullBundle(ctx, ref)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), ref) {
			t.Errorf("case %d: pull: %v, want an error naming %s and saying %q", i, err, ref, tc.want)
		}
	}

	module := reg.Host + "/app/module:v1"
	if _, err := oci.Push(ctx, []byte("\x00asm\x01\x00\x00\x00"), module, false); err != nil {
		t.Fatal(err)
	}
	if _, err := (&oci.Puller{}).PullBundle(ctx, module); err == nil || !strings.Contains(err.Error(), "not a StaticBundle") {
		t.Errorf("pull of a wasm module as a bundle: %v, want it refused as not a StaticBundle", err)
	}
}
