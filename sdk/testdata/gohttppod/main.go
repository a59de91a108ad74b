// Command gohttppod is the test pod of package k32http: a net/http ServeMux
// served in a kube32 pod. Build as gopod (see sdk/sdkgo_test.go).
package main

import (
	"io"
	"net/http"
	"os"

	"github.com/kube32/kube32/sdk/go/k32http"
)

func init() {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /items/{name}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("X-Pod", "gohttppod")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "name="+r.PathValue("name")+"\n")
		io.WriteString(w, "q="+r.URL.Query().Get("q")+"\n")
		io.WriteString(w, "host="+r.Host+"\n")
		io.WriteString(w, "x-test="+r.Header.Get("X-Test")+"\n")
		io.WriteString(w, "greeting="+os.Getenv("GREETING")+"\n")
		io.WriteString(w, "body="+string(body)+"\n")
	})
	mux.HandleFunc("GET /html", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!DOCTYPE html><html><body>hi</body></html>")
	})
	k32http.Handle(mux)
}

func main() {}
