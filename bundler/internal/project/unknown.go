package project

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// unknownField finds the first key of data that t has no field for and
// returns it as a field error naming its path ("pods[0].sources"), which the
// strict decoder's own message ("unknown field \"sources\"") does not say.
// It returns nil when it finds none, so the caller falls back to the
// decoder's message.
func unknownField(data []byte, t reflect.Type) error {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil
	}
	return walkUnknown(doc, t, "")
}

func walkUnknown(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f, ok := fields[k]
			sub := k
			if path != "" {
				sub = path + "." + k
			}
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				sort.Strings(known)
				return fieldError(sub, "unknown field (known: %s)", strings.Join(known, ", "))
			}
			if err := walkUnknown(m[k], f.Type, sub); err != nil {
				return err
			}
		}
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, item := range items {
			if err := walkUnknown(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of t's decoded fields to the fields.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}
