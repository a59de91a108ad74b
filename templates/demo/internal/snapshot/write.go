package snapshot

import (
	"archive/zip"
	"os"
	"slices"
)

// Archive is the file, in package demo's folder, that holds the snapshot.
const Archive = "demo.zip"

// Write writes files to the zip archive at path, in name order and stored
// uncompressed with no times, so the same files give the same archive.
func Write(path string, files map[string][]byte) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(out)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err == nil {
			_, err = w.Write(files[name])
		}
		if err != nil {
			out.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
