package k32

import (
	"testing"
	"unsafe"
)

// fakeGetter answers as a host getter does for value: copy min(len, cap)
// bytes, return the full length. calls counts the host calls.
func fakeGetter(value string, calls *int) getter {
	return func(out unsafe.Pointer, cap uint32) int32 {
		*calls++
		if cap > 0 {
			copy(unsafe.Slice((*byte)(out), cap), value)
		}
		return int32(len(value))
	}
}

func TestGetBytesFitsInFirstBuffer(t *testing.T) {
	calls := 0
	got, err := getString(fakeGetter("short", &calls), 16)
	if err != nil || got != "short" || calls != 1 {
		t.Errorf("got %q, %v after %d calls; want \"short\", nil after 1", got, err, calls)
	}
}

func TestGetBytesGrowsWhenTruncated(t *testing.T) {
	long := string(make([]byte, 300)) + "end"
	calls := 0
	got, err := getString(fakeGetter(long, &calls), 16)
	if err != nil || got != long || calls != 2 {
		t.Errorf("got %d bytes, %v after %d calls; want %d bytes after 2", len(got), err, calls, len(long))
	}
}

func TestGetBytesEmptyValueAndZeroHint(t *testing.T) {
	calls := 0
	if got, err := getString(fakeGetter("", &calls), 0); got != "" || err != nil {
		t.Errorf("got %q, %v", got, err)
	}
	if got, err := getString(fakeGetter("abc", &calls), 0); got != "abc" || err != nil {
		t.Errorf("zero hint: got %q, %v", got, err)
	}
}

func TestGetBytesReturnsHostError(t *testing.T) {
	_, err := getBytes(func(unsafe.Pointer, uint32) int32 { return int32(ErrNoEnt) }, 8)
	if err != ErrNoEnt {
		t.Errorf("err = %v, want ErrNoEnt", err)
	}
}

func TestGetBytesGivesUpOnAValueThatKeepsGrowing(t *testing.T) {
	n := int32(10)
	_, err := getBytes(func(unsafe.Pointer, uint32) int32 { n *= 2; return n }, 8)
	if err != ErrTooBig {
		t.Errorf("err = %v, want ErrTooBig", err)
	}
}
