package profile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// BackendDesktopApp is the backend of a profile whose browser is a real
// Chromium started as a window of a display, with its accessibility on
// and no DevTools: it is driven as any window is (its tree, its pixels),
// never over CDP. A profile without a backend ("") runs in the CDP
// browser.
const BackendDesktopApp = "desktop-app"

// App is how a desktop app's browser starts: the address it opens, its
// window's size in pixels (0 by 0: Chromium's own choice) and its
// window's mode (auto, tree or pixels; "" is auto). The daemon checks
// them before they are kept.
type App struct {
	URL    string `json:"url,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	Mode   string `json:"mode,omitempty"`
}

// ProviderCDP is the provider of a profile whose browser is an existing
// DevTools endpoint (somebody else's browser); cloud providers are named
// "cloud:<name>". The rows themselves are package provider's.
const ProviderCDP = "cdp"

// Remote reports whether p's browser is somebody else's, reached by an
// endpoint: it has no directory of ours.
func (p Profile) Remote() bool { return p.Provider != "" }

// ProviderName is the name of p's provider row: "desktop-app", the remote
// provider, or "chromium" (the daemon's own).
func (p Profile) ProviderName() string {
	switch {
	case p.Backend == BackendDesktopApp:
		return BackendDesktopApp
	case p.Provider != "":
		return p.Provider
	}
	return "chromium"
}

// NewRemote registers a profile whose browser is provider's at endpoint
// (cdp, or cloud:<name>); New's rules for its id and label apply, and no
// directory is made: the browser is not ours. The caller has checked the
// provider and the endpoint against its row.
func (r *Registry) NewRemote(label, provider, endpoint string) (Profile, error) {
	if !validRemote(provider) {
		return Profile{}, target.Refuse(target.CodeBadRequest, "%s is no remote provider (cdp, or cloud:<name>)", target.Echo(provider))
	}
	return r.createRemote(label, "", App{}, provider, endpoint)
}

// NewNamed registers a profile whose browser is a local one of provider
// (a row that keeps its name on the profile: firefox): no directory, no
// endpoint; its key carries the provider to the backend that runs it.
func (r *Registry) NewNamed(label, provider string) (Profile, error) {
	if provider == "" || strings.ContainsAny(provider, " \t\n/:") {
		return Profile{}, target.Refuse(target.CodeBadRequest, "%s is no provider name", target.Echo(provider))
	}
	return r.createRemote(label, "", App{}, provider, "")
}

func validRemote(provider string) bool {
	if provider == ProviderCDP {
		return true
	}
	name, ok := strings.CutPrefix(provider, "cloud:")
	return ok && name != "" && !strings.ContainsAny(name, " \t\n/:")
}

// DesktopApp reports whether p's browser runs as a desktop app.
func (p Profile) DesktopApp() bool { return p.Backend == BackendDesktopApp }

// BackendWords names p's backend for people: "desktop-app", or "cdp" for
// the CDP browser.
func (p Profile) BackendWords() string {
	if p.Backend == "" {
		return "cdp"
	}
	return p.Backend
}

// NewApp registers a profile whose browser runs as a desktop app, started
// as app says; New's rules for its id, label and directory apply.
func (r *Registry) NewApp(label string, app App) (Profile, error) {
	return r.create(label, BackendDesktopApp, app)
}

// FindApp finds the desktop app's profile new names by its label (found
// false: none has it). A label a CDP profile has is label_taken, naming
// its backend.
func (r *Registry) FindApp(label string) (p Profile, found bool, err error) {
	label = strings.TrimSpace(label)
	for _, p := range r.List() {
		if !strings.EqualFold(p.Label, label) {
			continue
		}
		if !p.DesktopApp() {
			return p, true, target.Refuse(target.CodeLabelTaken, "a profile labelled %q exists already (%s) and runs in the CDP browser: pick another label for the desktop app", p.Label, p.ID).
				With("label", p.Label).With("id", p.ID).With("backend", p.BackendWords())
		}
		return p, true, nil
	}
	return Profile{}, false, nil
}

// SetApp changes how a desktop app's browser starts next time. A profile
// that is not a desktop app is refused bad_request, an unknown id
// unknown_profile.
func (r *Registry) SetApp(id string, app App) (Profile, error) {
	var out Profile
	err := r.mutate(func(st *file) (bool, error) {
		for i := range st.Profiles {
			p := &st.Profiles[i]
			if p.ID != id {
				continue
			}
			if !p.DesktopApp() {
				return false, target.Refuse(target.CodeBadRequest, "profile %q (%s) runs in the CDP browser, not as a desktop app", p.Label, p.ID).
					With("profile", p.ID).With("backend", p.BackendWords())
			}
			if p.App == app {
				out = *p
				return false, nil
			}
			p.App = app
			out = *p
			return true, nil
		}
		return false, target.Refuse(target.CodeUnknownProfile, "no profile has the id %s", target.Echo(id)).With("ref", target.Clip(id))
	})
	return out, err
}

// validBackend checks a loaded profile's backend and its launch settings.
func (p Profile) validBackend() error {
	if p.Provider != "" && (p.Backend != "" || !validRemote(p.Provider)) {
		return fmt.Errorf("profile %s has an unknown provider %q", p.ID, p.Provider)
	}
	if p.Provider == "" && p.Endpoint != "" {
		return fmt.Errorf("profile %s has an endpoint but no provider", p.ID)
	}
	switch p.Backend {
	case "":
		if p.App != (App{}) {
			return fmt.Errorf("profile %s has a desktop app's settings but no desktop-app backend", p.ID)
		}
	case BackendDesktopApp:
		if p.App.Width < 0 || p.App.Height < 0 {
			return fmt.Errorf("profile %s has a negative window size", p.ID)
		}
	default:
		return fmt.Errorf("profile %s has an unknown backend %q", p.ID, p.Backend)
	}
	return nil
}

// Forget undoes a NewApp whose first start failed: the profile id is
// dropped from the registry and its user-data-dir removed. A profile a
// session has attached, or one that is not a desktop app, is refused
// bad_request; an unknown id is unknown_profile.
func (r *Registry) Forget(id string) error {
	err := r.mutate(func(st *file) (bool, error) {
		for i, p := range st.Profiles {
			if p.ID != id {
				continue
			}
			if !p.DesktopApp() {
				return false, target.Refuse(target.CodeBadRequest, "profile %q (%s) runs in the CDP browser; only a desktop app that never started is forgotten", p.Label, p.ID)
			}
			for s, ss := range st.Sessions {
				for _, a := range ss.Attachments {
					if a.ProfileID == id {
						return false, target.Refuse(target.CodeBadRequest, "profile %q (%s) is attached to session %s", p.Label, p.ID, s)
					}
				}
			}
			st.Profiles = append(st.Profiles[:i:i], st.Profiles[i+1:]...)
			return true, nil
		}
		return false, target.Refuse(target.CodeUnknownProfile, "no profile has the id %s", target.Echo(id)).With("ref", target.Clip(id))
	})
	if err != nil || !IsID(id) {
		return err
	}
	return os.RemoveAll(filepath.Join(r.stateDir, DirName, id))
}
