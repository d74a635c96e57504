package pool

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/lease"
	"github.com/vibespace/vibespace/target"
)

// Routes are the pool's part of the live view's API (live.Options.Routes),
// behind its viewer token: a person's own requests.
//
//	GET  /api/pool                   the desktops (who holds each, paused) and the queue's length
//	POST /api/pool/borrow?wait=30s   a person's borrow: before every agent in the queue
//	POST /api/pool/return            the person gives back the desktop they hold, wiped
//	POST /api/pool/takeover/{desk}   the person takes a lent desktop over: its borrower is paused
//	POST /api/pool/handback/{desk}   and hands it back
//
// A refusal answers 409 with its code, words and facts (pool_busy with
// the place in the queue).
func (p *Pool) Routes() map[string]http.Handler {
	return map[string]http.Handler{
		"GET /api/pool":                  http.HandlerFunc(p.apiState),
		"POST /api/pool/borrow":          http.HandlerFunc(p.apiBorrow),
		"POST /api/pool/return":          http.HandlerFunc(p.apiReturn),
		"POST /api/pool/takeover/{desk}": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.apiPause(w, r, true) }),
		"POST /api/pool/handback/{desk}": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.apiPause(w, r, false) }),
	}
}

// DeskState is one desktop as the page sees it.
type DeskState struct {
	Desk   string `json:"desk"`
	Kind   string `json:"kind"`
	Holder string `json:"holder,omitempty"`
	Paused bool   `json:"paused,omitempty"` // a person took it over
	Wiping bool   `json:"wiping,omitempty"`
}

func (p *Pool) apiState(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	out := struct {
		Desks  []DeskState `json:"desks"`
		Queued int         `json:"queued"`
		Cap    int         `json:"cap"`
	}{Queued: len(p.queue), Cap: p.cap}
	for _, d := range p.desks {
		out.Desks = append(out.Desks, DeskState{Desk: d.name, Kind: d.kind, Holder: d.holder, Paused: d.paused, Wiping: d.wiping})
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (p *Pool) apiBorrow(w http.ResponseWriter, r *http.Request) {
	a := args.Borrow{Kind: r.URL.Query().Get("kind"), Wait: r.URL.Query().Get("wait")}
	wait, err := a.WaitFor()
	if err != nil {
		refused(w, err)
		return
	}
	l, err := p.Borrow(r.Context(), Person, true, a.Kind, wait)
	if err != nil {
		refused(w, err)
		return
	}
	writeJSON(w, http.StatusOK, lentAnswer(l))
}

func (p *Pool) apiReturn(w http.ResponseWriter, r *http.Request) {
	name := p.Held(Person)
	wp, err := p.Return(r.Context(), Person, ReturnAsked)
	if err != nil {
		refused(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"did": fmt.Sprintf("returned %s: %s", name, wp), "desk": name})
}

func (p *Pool) apiPause(w http.ResponseWriter, r *http.Request, pause bool) {
	name := r.PathValue("desk")
	p.mu.Lock()
	var d *desk
	for _, x := range p.desks {
		if x.name == name {
			d = x
		}
	}
	if d == nil || d.holder == "" {
		p.mu.Unlock()
		refused(w, target.Refuse(target.CodeNotAttached, "%s is no lent desktop of the pool", target.Echo(name)))
		return
	}
	d.paused = pause
	holder := d.holder
	p.mu.Unlock()
	verb := "pool.handback"
	if pause {
		verb = "pool.takeover"
	}
	p.audit(lease.Entry{Session: Person, For: holder, Verb: verb, OK: true, With: name})
	writeJSON(w, http.StatusOK, map[string]any{"desk": name, "holder": holder, "paused": pause})
}

func refused(w http.ResponseWriter, err error) {
	r, ok := target.AsRefusal(err)
	if !ok {
		r = target.Refuse(target.CodeInternal, "%v", err)
	}
	writeJSON(w, http.StatusConflict, r)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// pausedFor reports whether target id is a window opened on a desktop that
// a person took over from its borrower session (its verbs wait for the
// handback).
func (p *Pool) pausedFor(session string, id target.ID) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name, ok := p.windows[id]
	if !ok {
		return "", false
	}
	for _, d := range p.desks {
		if d.name == name && d.holder == session && d.paused {
			return name, true
		}
	}
	return "", false
}

// opened records that window id was opened on desktop name.
func (p *Pool) opened(id target.ID, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.windows == nil {
		p.windows = map[target.ID]string{}
	}
	p.windows[id] = name
}

// forget drops the windows recorded on desktop name (it was wiped).
func (p *Pool) forgetLocked(name string) {
	for id, n := range p.windows {
		if n == name {
			delete(p.windows, id)
		}
	}
}

// deskPaused reports whether desktop name is taken over by a person.
func (p *Pool) deskPaused(name string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.desks {
		if d.name == name {
			return name, d.paused
		}
	}
	return name, false
}
