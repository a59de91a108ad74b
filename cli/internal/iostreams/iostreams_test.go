package iostreams

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTestStreamsAreBuffersMarkedAsTheTestSays(t *testing.T) {
	ios, in, out, errOut := Test()
	if ios.In != in || ios.Out != out || ios.ErrOut != errOut {
		t.Fatal("the streams are not the buffers returned")
	}
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || ios.IsStderrTTY() {
		t.Fatal("test streams start as terminals")
	}
	ios.SetStderrTTY(true)
	if ios.IsStdinTTY() || ios.IsStdoutTTY() || !ios.IsStderrTTY() {
		t.Errorf("after SetStderrTTY(true): stdin %v, stdout %v, stderr %v; want only stderr",
			ios.IsStdinTTY(), ios.IsStdoutTTY(), ios.IsStderrTTY())
	}
}

func TestRegularFileIsNoTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is reported a terminal")
	}
}
