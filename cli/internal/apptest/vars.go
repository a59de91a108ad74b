package apptest

import (
	"crypto/rand"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
)

// variable is {{name}} in a URL, header, body, argument or value.
var variable = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}`)

// anyTemplate is {{…}}: a variable, or one of Hurl's functions.
var anyTemplate = regexp.MustCompile(`\{\{[^{}]*\}\}`)

// variableName is a variable's name alone.
var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// vars are a file's variables, typed as Hurl types them: ingress, those
// its entries captured and those [Options] variable set.
type vars map[string]any

// functions are Hurl's template functions: {{newUuid}} is a new random
// UUID each time, {{newDate}} the date now.
var functions = map[string]func() any{
	"newUuid": func() any { return newUUID() },
	"newDate": func() any { return time.Now().UTC() },
}

// lookup returns a variable's value, or a function's.
func (v vars) lookup(name string) (any, bool) {
	if val, ok := v[name]; ok {
		return val, true
	}
	if f, ok := functions[name]; ok {
		return f(), true
	}
	return nil, false
}

// budget is what is left of abi.TestExpandBytesMax to the texts of one
// request, capture or assert as their variables are expanded.
type budget struct{ left int }

func newBudget() *budget { return &budget{left: abi.TestExpandBytesMax} }

// expand replaces each {{name}} in s by its value as text; an unknown name
// is an error that lists the known ones. The length of the result is
// counted first, against b: past abi.TestExpandBytesMax the error names
// the variable that weighs most, and nothing is built (a file of half a
// megabyte that uses a captured body a hundred thousand times would make
// gigabytes).
func (v vars) expand(s string, b *budget) (string, error) {
	if strings.Contains(s, "{{") {
		for _, t := range anyTemplate.FindAllString(s, -1) {
			if !variable.MatchString(t) {
				return "", fmt.Errorf("template %s: kube32 test expands {{variable}}, {{newUuid}} and {{newDate}} (docs/testing.md)", t)
			}
		}
	}
	matches := variable.FindAllStringSubmatchIndex(s, -1)
	if len(matches) == 0 {
		return s, b.take(len(s), "", 0)
	}
	size := len(s)
	texts := make([]string, len(matches))
	uses := map[string]int{}   // by variable
	weight := map[string]int{} // by variable: the bytes its uses make
	for i, m := range matches {
		name := s[m[2]:m[3]]
		val, ok := v.lookup(name)
		if !ok {
			return "", v.unknown(name)
		}
		texts[i] = text(val)
		size += len(texts[i]) - (m[1] - m[0])
		uses[name]++
		weight[name] += len(texts[i])
	}
	heaviest := ""
	for name, w := range weight {
		if most := weight[heaviest]; heaviest == "" || w > most || (w == most && name < heaviest) {
			heaviest = name
		}
	}
	if err := b.take(size, heaviest, uses[heaviest]); err != nil {
		return "", err
	}
	var out strings.Builder
	out.Grow(size)
	last := 0
	for i, m := range matches {
		out.WriteString(s[last:m[0]])
		out.WriteString(texts[i])
		last = m[1]
	}
	out.WriteString(s[last:])
	return out.String(), nil
}

// take counts size bytes against the budget; past it the error names the
// variable that weighs most and how often it is used.
func (b *budget) take(size int, heaviest string, uses int) error {
	if size > b.left {
		what := "its text"
		if heaviest != "" {
			what = fmt.Sprintf("{{%s}} used %d times", heaviest, uses)
		}
		return fmt.Errorf("variables expanded make more than %d bytes (%s), over the limit of abi.TestExpandBytesMax for one request, capture or assert",
			abi.TestExpandBytesMax, what)
	}
	b.left -= size
	return nil
}

// unknown is the error of an unknown variable: it lists the known ones.
func (v vars) unknown(name string) error {
	var names []string
	for k := range v {
		names = append(names, k)
	}
	sort.Strings(names)
	return fmt.Errorf("unknown variable {{%s}} (known here: %s)", name, strings.Join(names, ", "))
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
