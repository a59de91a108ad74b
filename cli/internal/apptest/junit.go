package apptest

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML, the report format CI systems read: one testsuite per file,
// one testcase per entry.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes results as JUnit XML.
func WriteJUnit(w io.Writer, results []Result) error {
	var doc junitSuites
	var total time.Duration
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.File]
		if !ok {
			i = len(doc.Suites)
			index[r.File] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: r.File})
		}
		s := &doc.Suites[i]
		c := junitCase{Name: fmt.Sprintf("%s (line %d)", r.Name, r.Line), Classname: r.File, Time: seconds(r.Time)}
		switch r.Outcome {
		case Fail:
			text := strings.Join(r.Failures, "\n")
			if r.Answer != "" {
				text += "\nanswer: " + r.Answer
			}
			c.Failure = &junitFailure{Message: r.Failures[0], Text: text}
			s.Failures++
		case Skip:
			c.Skipped = &junitSkipped{Message: "an earlier entry of this file failed"}
			if r.Note != "" {
				c.Skipped.Message = r.Note
			}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
		total += r.Time
	}
	for i := range doc.Suites {
		var d time.Duration
		for _, r := range results {
			if r.File == doc.Suites[i].Name {
				d += r.Time
			}
		}
		doc.Suites[i].Time = seconds(d)
		doc.Tests += doc.Suites[i].Tests
		doc.Failures += doc.Suites[i].Failures
		doc.Skipped += doc.Suites[i].Skipped
	}
	doc.Time = seconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
