package apptest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Hurl's toDate and format filters take strftime formats (%Y-%m-%d, %+
// for RFC 3339 …): https://docs.rs/chrono/latest/chrono/format/strftime/.

// layouts are the directives that have a Go layout, for parsing and
// formatting alike.
var layouts = map[string]string{
	"Y": "2006", "y": "06", "m": "01", "b": "Jan", "h": "Jan", "B": "January", "d": "02", "e": "_2",
	"a": "Mon", "A": "Monday", "j": "002", "H": "15", "I": "03", "M": "04", "S": "05", "p": "PM",
	"z": "-0700", ":z": "-07:00", "Z": "MST", "T": "15:04:05", "R": "15:04", "D": "01/02/06",
	"F": "2006-01-02", "c": "Mon Jan _2 15:04:05 2006", "x": "01/02/06", "X": "15:04:05",
	"r": "03:04:05 PM", "v": "_2-Jan-2006", "+": time.RFC3339Nano,
	"f": "000000000", ".f": ".999999999", ".3f": ".000", ".6f": ".000000", ".9f": ".000000000",
	"3f": "000", "6f": "000000", "9f": "000000000", "t": "\t", "n": "\n", "%": "%",
}

// directives splits a strftime format into literal text and directives
// (the text after %).
func directives(format string) ([]string, []bool, error) {
	var parts []string
	var isDirective []bool
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			j := strings.IndexByte(format[i:], '%')
			if j < 0 {
				j = len(format) - i
			}
			parts, isDirective = append(parts, format[i:i+j]), append(isDirective, false)
			i += j - 1
			continue
		}
		d := ""
		for _, cand := range []string{".3f", ".6f", ".9f", ".f", "3f", "6f", "9f", ":z"} {
			if strings.HasPrefix(format[i+1:], cand) {
				d = cand
				break
			}
		}
		if d == "" && i+1 < len(format) {
			d = format[i+1 : i+2]
		}
		if d == "" {
			return nil, nil, fmt.Errorf("a lone %% at the end of %q", format)
		}
		parts, isDirective = append(parts, d), append(isDirective, true)
		i += len(d)
	}
	return parts, isDirective, nil
}

// parseDate reads s in the strftime format; without a zone it is UTC.
func parseDate(s, format string) (time.Time, error) {
	parts, isDirective, err := directives(format)
	if err != nil {
		return time.Time{}, err
	}
	if len(parts) == 1 && isDirective[0] && parts[0] == "s" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, err
		}
		return time.Unix(n, 0).UTC(), nil
	}
	var layout strings.Builder
	for i, p := range parts {
		if !isDirective[i] {
			layout.WriteString(p)
			continue
		}
		l, ok := layouts[p]
		if !ok {
			return time.Time{}, fmt.Errorf("%%%s is not a directive kube32 test parses (docs/testing.md)", p)
		}
		if p == ".f" {
			l = "" // Go reads a fraction after the seconds by itself
		}
		layout.WriteString(l)
	}
	return time.Parse(layout.String(), s)
}

// formatDate writes d in the strftime format.
func formatDate(d time.Time, format string) (string, error) {
	parts, isDirective, err := directives(format)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, p := range parts {
		if !isDirective[i] {
			b.WriteString(p)
			continue
		}
		switch p {
		case "s":
			b.WriteString(strconv.FormatInt(d.Unix(), 10))
		case "C":
			fmt.Fprintf(&b, "%02d", d.Year()/100)
		case "u":
			fmt.Fprintf(&b, "%d", (int(d.Weekday())+6)%7+1)
		case "w":
			fmt.Fprintf(&b, "%d", int(d.Weekday()))
		case "k":
			fmt.Fprintf(&b, "%2d", d.Hour())
		case "l":
			fmt.Fprintf(&b, "%2d", (d.Hour()+11)%12+1)
		case "P":
			b.WriteString(strings.ToLower(d.Format("PM")))
		case "f", "9f":
			fmt.Fprintf(&b, "%09d", d.Nanosecond())
		case "6f":
			fmt.Fprintf(&b, "%06d", d.Nanosecond()/1000)
		case "3f":
			fmt.Fprintf(&b, "%03d", d.Nanosecond()/1000000)
		default:
			l, ok := layouts[p]
			if !ok {
				return "", fmt.Errorf("%%%s is not a directive kube32 test formats (docs/testing.md)", p)
			}
			b.WriteString(d.Format(l))
		}
	}
	return b.String(), nil
}
