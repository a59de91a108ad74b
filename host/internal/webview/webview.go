// Package webview is the web view of the cluster (docs/ui.md): one page
// and its modules, embedded, which read the API as kubectl does, its login
// and session, and abi.UIPath + "events", the activity stream as
// Server-Sent Events. The cluster mounts it on the API port (Mount): the
// page, its login and its session without the token, the events behind
// the port's gate.
package webview

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/activity"
	"github.com/kube32/kube32/host/internal/apiauth"
	"github.com/kube32/kube32/host/internal/apistatus"
	"github.com/kube32/kube32/host/internal/sse"
)

// uiFiles is the page and its modules, which read the API as kubectl does
// and abi.UIPath + "events".
//
//go:embed ui
var uiFiles embed.FS

// keepAlive is how often an idle event stream sends a comment, so that
// proxies and browsers keep it open.
const keepAlive = 15 * time.Second

// Config wires the web view to the cluster.
type Config struct {
	// Activity, when set, is streamed at abi.UIPath + "events"; the page
	// itself is served either way.
	Activity *activity.Stream
	// TLSAddr is the HTTPS API endpoint (host:port). With a token the web
	// view lives there only, where its session cookie can be Secure: over
	// plain HTTP abi.UIPath redirects to it (docs/ui.md).
	TLSAddr string
}

// view is the web view on one API port.
type view struct {
	cfg  Config
	gate *apiauth.Gate
	mux  *http.ServeMux
}

// Mount serves the web view on port: abi.UIPath's files, its login and
// its session without the token, since they carry no cluster data and the
// page asks for the token; its events behind port's gate. Over plain HTTP,
// with a token and cfg.TLSAddr, every path of it first redirects there.
func Mount(port *apiauth.Mux, cfg Config) {
	v := &view{cfg: cfg, gate: port.Gate(), mux: http.NewServeMux()}
	files, _ := fs.Sub(uiFiles, "ui")
	v.mux.Handle("GET "+abi.UIPath, http.StripPrefix(abi.UIPath, fileServer(files)))
	v.mux.HandleFunc("POST "+abi.UIPath+"login", v.serveLogin)
	v.mux.HandleFunc("GET "+abi.UIPath+"events", v.serveEvents)
	v.mux.HandleFunc("GET "+abi.UIPath+"session", v.serveSession)

	page := v.toHTTPS(v.mux)
	port.HandlePublic(strings.TrimSuffix(abi.UIPath, "/"), page)
	port.HandlePublic(abi.UIPath, page)
	// The redirect first, as for the page: it tells nothing.
	port.HandlePublic(abi.UIPath+"events", v.toHTTPS(v.gate.Require(v.mux)))
}

// toHTTPS redirects the requests over plain HTTP to cfg.TLSAddr while the
// view needs the token: the view then lives on the HTTPS port only, where
// its session cookie is Secure (docs/ui.md).
func (v *view) toHTTPS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !apiauth.OverHTTPS(r) && !v.gate.Open() && v.cfg.TLSAddr != "" {
			http.Redirect(w, r, "https://"+v.cfg.TLSAddr+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// serveSession tells the page whether its requests carry the token (or
// need none), so that it asks for it without a refused request first.
func (v *view) serveSession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]bool{"authorized": v.gate.Authorized(r)})
}

// fileServer serves the embedded files, never cached, so that a new
// binary's page is what the browser loads.
func fileServer(files fs.FS) http.Handler {
	fsrv := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fsrv.ServeHTTP(w, r)
	})
}

// serveLogin takes the cluster token from the form field "token" and,
// when it is the cluster's, keeps it in the browser as abi.SessionCookie;
// a wrong token gets 401, and a client past its budget of wrong tokens
// 429 (the gate's, shared with the API). The login also ends the cookie
// of the view before, abi.TokenCookie, which the API no longer takes. The
// form must come as the page sends it (apiauth.LoginBody), else 415.
func (v *view) serveLogin(w http.ResponseWriter, r *http.Request) {
	if err := apiauth.CheckBody(r, apiauth.LoginBody); err != nil {
		apistatus.Write(w, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := strings.TrimSpace(r.PostFormValue("token"))
	if v.gate.Open() {
		w.WriteHeader(http.StatusNoContent) // nothing to keep
		return
	}
	if ok, wait := v.gate.CheckToken(r, token); !ok {
		if wait > 0 {
			apiauth.WriteTooManyGuesses(w, wait)
			return
		}
		http.Error(w, "wrong cluster token", http.StatusUnauthorized)
		return
	}
	// __Host-: Secure, Path=/ and no Domain, so the browser keeps it for
	// this host over HTTPS only; SameSite=Strict, so no other site's page
	// makes the browser send it.
	http.SetCookie(w, &http.Cookie{Name: abi.SessionCookie, Value: token, Path: "/",
		HttpOnly: true, Secure: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: abi.TokenCookie, Path: "/", MaxAge: -1})
	w.WriteHeader(http.StatusNoContent)
}

// serveEvents streams the activity stream as Server-Sent Events: first
// the events it holds, then each new one, every one an "activity" event of
// its JSON; a "dropped" event says how many this viewer missed when it
// fell behind.
func (v *view) serveEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if err := apistatus.BeginStream(w, r); err != nil {
		apistatus.Write(w, err)
		return
	}
	recent, sub := v.cfg.Activity.Subscribe()
	defer sub.Close()
	stream := sse.Start(w)
	send := func(event string, data any) bool {
		b, _ := json.Marshal(data)
		return stream.Event(event, b) == nil
	}
	for _, e := range recent {
		if !send("activity", e) {
			return
		}
	}
	if stream.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	var dropped int64
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-sub.Events():
			if !send("activity", e) {
				return
			}
		case <-tick.C:
			if stream.Comment("keep-alive") != nil {
				return
			}
		}
		if n := sub.Dropped(); n != dropped {
			dropped = n
			if !send("dropped", map[string]int64{"dropped": n}) {
				return
			}
		}
		if stream.Flush() != nil {
			return
		}
	}
}
