package displays

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/vibespace/vibespace/target"
)

// Keys of lease.State.Backends the registry keeps: the running shared
// displays' records (by display name), the per-session displays' (a list,
// each with its provider's name and its session), and the lost handles
// (LostKey). LegacyDisplayKey is where a daemon of an earlier version kept
// its one display's record.
const (
	DisplaysKey        = "displays"
	SessionDisplaysKey = "session_displays"
	LegacyDisplayKey   = "display"
)

// SessionRecord is how state.json keeps a per-session display: its
// provider's name, its session, and the provider's record of it.
type SessionRecord struct {
	Display string          `json:"display"`
	Session string          `json:"session"`
	Record  json.RawMessage `json:"record"`
	shared  bool            // read from the shared displays' map (Reattach)
}

// Keep adds to backends the records of disps (the running displays, as
// AllLocked read them) and the lost handles, for the state file.
func (r *Registry) Keep(disps []*Display, backends map[string]json.RawMessage) error {
	recs := map[string]json.RawMessage{}
	var srecs []SessionRecord
	for _, disp := range disps {
		if disp.perSession {
			srecs = append(srecs, SessionRecord{Display: disp.name, Session: disp.session, Record: disp.d.Record()})
		} else {
			recs[disp.name] = disp.d.Record()
		}
	}
	if len(recs) > 0 {
		b, err := json.Marshal(recs)
		if err != nil {
			return fmt.Errorf("daemon: the displays' record: %w", err)
		}
		backends[DisplaysKey] = b
	}
	if len(srecs) > 0 {
		sort.Slice(srecs, func(i, j int) bool {
			if srecs[i].Session != srecs[j].Session {
				return srecs[i].Session < srecs[j].Session
			}
			return srecs[i].Display < srecs[j].Display
		})
		b, err := json.Marshal(srecs)
		if err != nil {
			return fmt.Errorf("daemon: the per-session displays' record: %w", err)
		}
		backends[SessionDisplaysKey] = b
	}
	if ls := r.LostRecord(); ls != nil {
		backends[LostKey] = ls
	}
	return nil
}

// Reattach re-attaches the displays an earlier daemon left running, as
// its state's backends record them; a display that is gone, or of a
// provider this daemon does not have (or not so), is left. The core's
// reconcile calls it before the daemon serves. A state of an earlier
// version (LegacyDisplayKey) names its one display's windows by X id: their
// keys, and the first provider as their display, are filled into targets
// in place, read from the state file at statePath.
func (r *Registry) Reattach(ctx context.Context, backends map[string]json.RawMessage, targets []target.Target, statePath string) {
	recs := map[string]json.RawMessage{}
	if b := backends[DisplaysKey]; len(b) > 0 {
		if err := json.Unmarshal(b, &recs); err != nil {
			r.o.Logger.Warn("the displays' record is unreadable; starting without them", "err", err)
		}
	} else if b := backends[LegacyDisplayKey]; len(b) > 0 && len(r.o.Providers) > 0 {
		// An earlier version kept one display, of the first provider, and
		// its windows by X id (legacyKeys).
		first := r.o.Providers[0].Name()
		recs[first] = b
		keys := legacyKeys(statePath)
		for i := range targets {
			if t := &targets[i]; t.Key == "" && keys[t.ID] != "" {
				t.Key, t.Display = keys[t.ID], first
			}
		}
	}
	var srecs []SessionRecord
	if b := backends[SessionDisplaysKey]; len(b) > 0 {
		if err := json.Unmarshal(b, &srecs); err != nil {
			r.o.Logger.Warn("the per-session displays' record is unreadable; starting without them", "err", err)
		}
	}
	for name, rec := range recs {
		srecs = append(srecs, SessionRecord{Display: name, Record: rec, shared: true})
	}
	for _, sr := range srecs {
		p := r.Provider(sr.Display)
		if p == nil || PerSession(p) == sr.shared {
			r.o.Logger.Warn("a display of a provider this daemon does not have (or not so) is left alone", "display", sr.Display, "session", sr.Session)
			continue
		}
		kd, err := p.Reattach(ctx, sr.Record)
		if err != nil {
			r.o.Logger.Info("the display of the earlier daemon is gone; dropping its targets", "display", sr.Display, "session", sr.Session, "err", err)
			continue
		}
		disp := r.NewDisplay(p, kd, sr.Session)
		r.mu.Lock()
		r.m[disp.Key()] = disp
		r.mu.Unlock()
	}
}

// A daemon of an earlier version (before displays were registered) kept its
// one display under the state's "display" key, of what is now the first
// provider (our Xvfb), and named each window by its X id ("xid"), where a
// window's key on an X display is now that id in hex. A daemon of this
// version that finds such a state (the earlier one was killed, its display
// left running) takes it over rather than orphan its applications.

// legacyKeys reads the X ids of the windows of the state file at path, as
// keys by target.
func legacyKeys(path string) map[target.ID]string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var st struct {
		Targets []struct {
			ID  target.ID `json:"id"`
			XID uint32    `json:"xid"`
		} `json:"targets"`
	}
	if json.Unmarshal(b, &st) != nil {
		return nil
	}
	keys := map[target.ID]string{}
	for _, t := range st.Targets {
		if t.XID != 0 {
			keys[t.ID] = fmt.Sprintf("0x%x", t.XID)
		}
	}
	return keys
}
