package pod

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kube32/kube32/abi"
)

// TestCHelperReqPathCStr: k32.h's k32_req_path_cstr gives a C pod its path
// NUL-terminated, and refuses with K32_ERR_TOOBIG (an empty string in the
// buffer) a path it would have to cut, rather than cutting it.
func TestCHelperReqPathCStr(t *testing.T) {
	url := serve(t, startPod(t, onePage(t, "pathcstr"), nil))
	for _, tt := range []struct{ path, want string }{
		{"/abc?q=1", "n=4 path=/abc"},
		{"/abcdefghijklmn", "n=15 path=/abcdefghijklmn"}, // 15 bytes: the buffer's room
		{"/abcdefghijklmno", fmt.Sprintf("n=%d path=", abi.ErrTooBig)},
		{"/a%20b", "n=6 path=/a%20b"}, // the escaped form, as received
	} {
		res := do(t, http.MethodGet, url+tt.path, "")
		if res.status != http.StatusOK || res.body != tt.want {
			t.Errorf("GET %s: %d %q, want %q", tt.path, res.status, res.body, tt.want)
		}
	}
}
