package apiserver

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/kube32/kube32/abi"
	"github.com/kube32/kube32/host/internal/sse"
)

// uiFiles is the web view (docs/ui.md): one page and its modules, which
// read the API as kubectl does and abi.UIPath + "events".
//
//go:embed ui
var uiFiles embed.FS

// uiKeepAlive is how often an idle event stream sends a comment, so that
// proxies and browsers keep it open.
const uiKeepAlive = 15 * time.Second

func (s *Server) registerUI() {
	files, _ := fs.Sub(uiFiles, "ui")
	s.mux.Handle("GET "+abi.UIPath, http.StripPrefix(abi.UIPath, uiFileServer(files)))
	s.mux.HandleFunc("POST "+abi.UIPath+"login", s.serveUILogin)
	s.mux.HandleFunc("GET "+abi.UIPath+"events", s.serveUIEvents)
	s.mux.HandleFunc("GET "+abi.UIPath+"session", s.serveUISession)
}

// serveUISession tells the page whether its requests carry the token (or
// need none), so that it asks for it without a refused request first.
func (s *Server) serveUISession(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]bool{"authorized": s.cfg.Token == "" || s.authorized(r)})
}

// uiPublic reports whether r is for the page's own files or its login,
// which carry no cluster data and so need no token: the page asks for it.
func uiPublic(r *http.Request) bool {
	p := r.URL.Path
	if p == strings.TrimSuffix(abi.UIPath, "/") {
		return true
	}
	rest, ok := strings.CutPrefix(p, abi.UIPath)
	return ok && rest != "events"
}

// uiFileServer serves the embedded files, never cached, so that a new
// binary's page is what the browser loads.
func uiFileServer(files fs.FS) http.Handler {
	fsrv := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fsrv.ServeHTTP(w, r)
	})
}

// uiOverPlainHTTP reports whether r is for the web view over plain HTTP
// while the view needs the token: the view then lives on the HTTPS port
// only, where its session cookie is Secure (docs/ui.md).
func (s *Server) uiOverPlainHTTP(r *http.Request) bool {
	if overHTTPS(r) || s.cfg.Token == "" || s.cfg.TLSAddr == "" {
		return false
	}
	return r.URL.Path == strings.TrimSuffix(abi.UIPath, "/") || strings.HasPrefix(r.URL.Path, abi.UIPath)
}

// serveUILogin takes the cluster token from the form field "token" and,
// when it is the cluster's, keeps it in the browser as abi.SessionCookie;
// a wrong token gets 401, and a client past its budget of wrong tokens
// 429 (guesses.go). The login also ends the cookie of the view before,
// abi.TokenCookie, which the API no longer takes.
func (s *Server) serveUILogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	token := strings.TrimSpace(r.PostFormValue("token"))
	if s.cfg.Token == "" {
		w.WriteHeader(http.StatusNoContent) // nothing to keep
		return
	}
	if ok, wait := s.checkToken(r, token); !ok {
		if wait > 0 {
			writeTooManyGuesses(w, wait)
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

// serveUIEvents streams the activity stream as Server-Sent Events: first
// the events it holds, then each new one, every one an "activity" event of
// its JSON; a "dropped" event says how many this viewer missed when it
// fell behind.
func (s *Server) serveUIEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := w.(http.Flusher); !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	if err := beginStream(w, r); err != nil {
		writeStatus(w, err)
		return
	}
	recent, sub := s.cfg.Activity.Subscribe()
	defer sub.Close()
	stream := sse.Start(w)
	send := func(event string, v any) bool {
		b, _ := json.Marshal(v)
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
	keepAlive := time.NewTicker(uiKeepAlive)
	defer keepAlive.Stop()
	var dropped int64
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-sub.Events():
			if !send("activity", e) {
				return
			}
		case <-keepAlive.C:
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
