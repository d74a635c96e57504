// Package viewer is the live view's page: one strip per session with a tab
// for every target it drives (what the target lives in — its own context, a
// named profile, a helper's child handle, a desktop app, a window — who
// drives it, and its live thumbnail at the thumb tier), the count of
// browsers against the ceiling with the session's idle ones and their Stop,
// a pane per watched target with its video, who drives it, the agent's last
// act, and Take over / Hand back. A tab pops out into a page of its own
// (#token=…&target=<id>&solo=1) that watches that target alone. The assets are embedded (no build
// step) and served with a Content-Security-Policy that allows nothing but
// the page's own origin, so the page fetches nothing from elsewhere.
//
// The page reads the viewer token from its URL fragment (#token=…, never
// sent to the server with the page) and sends it as "Authorization: Bearer"
// on every API and WHEP request; the daemon serves the page itself without
// it and everything else only with it.
package viewer

import (
	"embed"
	"net/http"
)

//go:embed index.html app.js style.css
var files embed.FS

// CSP is the page's Content-Security-Policy: its own scripts, styles and
// API only; no inline script, no frames, no other origin.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page's assets: "/" (index.html), "/app.js" and
// "/style.css". Anything else is 404.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		var name, ctype string
		switch r.URL.Path {
		case "/", "/index.html":
			name, ctype = "index.html", "text/html; charset=utf-8"
		case "/app.js":
			name, ctype = "app.js", "text/javascript; charset=utf-8"
		case "/style.css":
			name, ctype = "style.css", "text/css; charset=utf-8"
		default:
			http.NotFound(w, r)
			return
		}
		b, err := files.ReadFile(name)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		SecurityHeaders(w.Header())
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(b)
	})
}

// SecurityHeaders sets the headers every answer of the live view carries.
func SecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
}
