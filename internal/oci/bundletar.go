package oci

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kube32/kube32/abi"
)

// A bundle's layer is a tar of its regular files only, in the order of
// their paths, each with the same mode, owner and time, so that one folder
// always gives the same bytes and so the same digest (docs/oci.md,
// "Bundles").
var (
	tarModTime = time.Unix(0, 0).UTC()
	tarMode    = int64(0o644)
)

// ValidBundlePath reports why name cannot be the path of a file of a
// bundle artifact, or nil: a relative slash-separated path without "." or
// ".." elements, empty elements, backslashes, control characters or bytes
// that are not UTF-8, and at most abi.OCIBundlePathMax bytes. It is the one
// rule for the names `kube32 push` writes and a pull unpacks.
func ValidBundlePath(name string) error {
	switch {
	case len(name) > abi.OCIBundlePathMax:
		return fmt.Errorf("path %.40q… is %d bytes, more than OCIBundlePathMax (%d)", name, len(name), abi.OCIBundlePathMax)
	case !utf8.ValidString(name):
		return fmt.Errorf("path %q is not UTF-8", name)
	case strings.ContainsFunc(name, unicode.IsControl) || strings.Contains(name, "\\"):
		return fmt.Errorf("path %q holds a control character or a backslash", name)
	case !fs.ValidPath(name) || name == ".":
		return fmt.Errorf("path %q is not a relative path inside the bundle (no leading /, no . or .. elements)", name)
	}
	return nil
}

// BundleLayer reads the built bundle in the folder dir and returns its
// layer: the tar of its files. It refuses, naming the file and the limit,
// a folder without files, a symbolic link or any other file that is not a
// regular file or a folder, an unsafe name, and a bundle past
// abi.OCIBundleFilesMax or abi.OCIBundleBytesMax. The folder is read
// through an os.Root, so nothing outside it is read.
func BundleLayer(dir string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	fsys := root.FS()
	var names []string
	var total int64
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." {
				return checkName(p)
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (%s): a bundle holds regular files only, no symbolic links", p, d.Type())
		}
		if err := checkName(p); err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if len(names) == abi.OCIBundleFilesMax {
			return fmt.Errorf("more than %d files: past OCIBundleFilesMax", abi.OCIBundleFilesMax)
		}
		total += info.Size() + 1024 // the tar header and padding, at most
		if total > abi.OCIBundleBytesMax {
			return fmt.Errorf("%s brings the bundle past OCIBundleBytesMax (%d bytes)", p, int64(abi.OCIBundleBytesMax))
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, errors.New("the folder holds no files: not a built bundle")
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: tarMode, ModTime: tarModTime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > abi.OCIBundleBytesMax {
		return nil, fmt.Errorf("the bundle's layer is %d bytes, more than OCIBundleBytesMax (%d)", buf.Len(), int64(abi.OCIBundleBytesMax))
	}
	return buf.Bytes(), nil
}

func checkName(p string) error {
	if err := ValidBundlePath(p); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// unpackBundle reads a bundle's layer into its files by path, refusing
// (and naming) an entry that is not a regular file or a folder, an unsafe
// or repeated path, and a bundle past abi.OCIBundleFilesMax or
// abi.OCIBundleBytesMax: a layer from a registry is anyone's.
func unpackBundle(layer []byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	var total int64
	tr := tar.NewReader(bytes.NewReader(layer))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("bundle layer: %w", err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(hdr.Name, "./"), "/")
		if hdr.Typeflag == tar.TypeDir {
			if name != "." && name != "" {
				if err := ValidBundlePath(name); err != nil {
					return nil, fmt.Errorf("bundle layer: folder %w", err)
				}
			}
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("bundle layer: %q is not a regular file (tar type %q): a bundle holds regular files only", hdr.Name, hdr.Typeflag)
		}
		if err := ValidBundlePath(name); err != nil {
			return nil, fmt.Errorf("bundle layer: %w", err)
		}
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("bundle layer: %q is in the layer twice", name)
		}
		if len(files) == abi.OCIBundleFilesMax {
			return nil, fmt.Errorf("bundle layer: more than %d files (OCIBundleFilesMax)", abi.OCIBundleFilesMax)
		}
		total += hdr.Size
		if hdr.Size < 0 || total > abi.OCIBundleBytesMax {
			return nil, fmt.Errorf("bundle layer: %q brings the files past OCIBundleBytesMax (%d bytes)", name, int64(abi.OCIBundleBytesMax))
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("bundle layer: %q: %w", name, err)
		}
		files[name] = data
	}
	for name := range files {
		// A file may not also be a folder of another: "a" and "a/b".
		for dir := name; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			dir = dir[:i]
			if _, clash := files[dir]; clash {
				return nil, fmt.Errorf("bundle layer: %q is a file and a folder", dir)
			}
		}
	}
	if len(files) == 0 {
		return nil, errors.New("bundle layer: no files")
	}
	return files, nil
}
