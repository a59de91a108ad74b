package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"sigs.k8s.io/yaml"
)

// Load reads, decodes and validates dir/kube32.yaml.
func Load(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(abs, FileName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no %s here (is this a kube32 project? `kube32 new NAME` makes one)", dir, FileName)
		}
		return nil, err
	}
	return parse(abs, data)
}

// parse decodes and validates the contents of a kube32.yaml whose project
// directory is dir (used to resolve and check paths).
func parse(dir string, data []byte) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	p := &Project{}
	if err := yaml.UnmarshalStrict(data, p); err != nil {
		if ferr := unknownField(data, reflect.TypeOf(p)); ferr != nil {
			return nil, ferr
		}
		return nil, fmt.Errorf("%s: %s", FileName, decodeMessage(err))
	}
	p.Dir = abs
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// decodeMessage strips the layers sigs.k8s.io/yaml adds ("error converting
// YAML to JSON: yaml: line 3: …", "error unmarshaling JSON: while decoding
// JSON: json: unknown field …") so that the message reads as one sentence.
func decodeMessage(err error) string {
	msg := err.Error()
	for _, prefix := range []string{
		"error converting YAML to JSON: ",
		"error unmarshaling JSON: ",
		"while decoding JSON: ",
		"json: ",
		"yaml: ",
	} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	return msg
}
