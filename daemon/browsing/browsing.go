// Package browsing is the browser's profile words, out of the daemon's
// core: the profile registry of the state directory (package profile),
// the choice of a session's browser context (its attachment, or its own
// ephemeral context) and the gate of its provider row, and the words that
// reach no tab — browser.profiles, use, attachments, detach, pin,
// new-child and status — which it answers as a registered stage
// (stage.Answerer, cmd/vibespace-daemon/stages).
//
// The tab words (daemon/tabs, which the program hands this stage) ask it
// for a session's selection before they reach a tab (Choose, Gate), to
// name a profile in an answer (Attached, Known) and for the registry that
// new and close of a desktop app use; the core asks it to name a profile
// in an answer (Describe) and for the registry (the live view's). The core
// lends the package its hands as the daemon makes it (Host, which it
// asserts stage.Env.Hands to): the provider table, the keys, the browser
// backend, the desktop app windows, the session's tabs and the daemon's
// status. The package never imports the core (layout_test.go).
package browsing

import (
	"context"
	"fmt"
	"github.com/vibespace/vibespace/daemon/args"
	"strings"
	"sync"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "browsing"

// Selection is a resolved profile choice: which browser context (Key), and
// how answers name it (Prof). A desktop app's profile (App) has no browser
// context: its browser is a window. Row is the profile's provider row
// (chromium for an ephemeral context): the verbs it cannot do are refused
// before anything runs. Package daemon/tabs, which asks for it, spells
// the same type (tabs.Selection).
type Selection = struct {
	Key  kind.BrowserKey
	Prof wire.ProfileInfo
	App  bool
	Row  provider.Row
}

// Host is what the core lends the package (stage.Env.Hands).
type Host interface {
	// Rows is the provider table the daemon reads.
	Rows() []provider.Row
	// Key reads a provider's key from the daemon's key store.
	Key(scope string) (value string, ok bool, err error)
	// Browser is the browser backend, nil when the daemon has none.
	Browser() kind.Browser
	// AppWindow is the window a desktop app's profile runs as (ok false
	// when it does not run).
	AppWindow(profileID string) (target.ID, bool)
	// CloseTabs closes and forgets the session's tabs in key's context.
	CloseTabs(ctx context.Context, session string, key kind.BrowserKey)
	// Tabs is every tab exposed to session, as list shows it.
	Tabs(session string) []wire.TargetInfo
	// Status is the daemon's status as session sees it.
	Status(ctx context.Context, session string) *wire.Status
}

// Stage is the profile words' stage.
type Stage struct {
	env  stage.Env
	host Host

	regOnce sync.Once
	reg     *profile.Registry // the profile registry, opened on first use
	regErr  error
}

// New makes the stage with the core's hands (env.Hands, a Host; nil lends
// none).
func New(env stage.Env) (stage.Stage, error) {
	s := &Stage{env: env}
	if env.Hands != nil {
		h, ok := env.Hands.(Host)
		if !ok {
			return nil, fmt.Errorf("the core's hands (%T) are not what the profile words need (browsing.Host)", env.Hands)
		}
		s.host = h
	}
	return s, nil
}

func (s *Stage) Name() string { return Name }

// Verbs are the profile words that reach no tab.
func (s *Stage) Verbs() []string {
	return []string{"browser.profiles", "browser.use", "browser.attachments", "browser.detach",
		"browser.pin", "browser.new-child", "browser.status"}
}

// Answer answers one of Verbs.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	req := c.Req
	if req.Verb == "browser.status" && s.host.Browser() == nil {
		return wire.Response{}, kind.NoBrowser()
	}
	reg, err := s.Registry()
	if err != nil {
		return wire.Response{}, err
	}
	switch req.Verb {
	case "browser.profiles":
		return s.profiles(reg, req)
	case "browser.use":
		return s.use(reg, req, c.Args.(args.Use))
	case "browser.attachments":
		return s.attachments(reg, req)
	case "browser.detach":
		return s.detach(ctx, reg, req)
	case "browser.pin":
		return s.pin(reg, req, c.Args.(args.Pin))
	case "browser.new-child":
		return s.newChild(reg, req, c.Args.(args.Child))
	case "browser.status":
		return s.status(ctx, reg, req)
	}
	return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s does not answer %s", Name, req.Verb)
}

// Registry is the profile registry of the state directory, opened on first
// use.
func (s *Stage) Registry() (*profile.Registry, error) {
	s.regOnce.Do(func() {
		s.reg, s.regErr = profile.Open(s.env.StateDir, s.env.Now)
	})
	return s.reg, s.regErr
}

// row finds a row of the daemon's table by name; "" is chromium.
func (s *Stage) row(name string) (provider.Row, bool) { return provider.LookupIn(s.host.Rows(), name) }

// Choose resolves req's profile choice (Request.Profile: --profile or
// VIBESPACE_BROWSER) to a browser context. The registry's refusals
// (profile_required, profile_changed, path_not_handle, unknown_profile)
// pass through with their facts.
func (s *Stage) Choose(req wire.Request) (Selection, error) {
	reg, err := s.Registry()
	if err != nil {
		return Selection{}, err
	}
	ch, err := reg.Resolve(req.Session, req.Profile)
	if err != nil {
		return Selection{}, err
	}
	return s.selectionOf(reg, req, ch)
}

// selectionOf turns a choice into the context key and the ProfileInfo.
func (s *Stage) selectionOf(reg *profile.Registry, req wire.Request, ch profile.Choice) (Selection, error) {
	sel := Selection{Prof: wire.ProfileInfo{Handle: ch.Handle(), Attachments: ch.Count}}
	a := ch.Attachment
	if a != nil {
		sel.Prof.Default, sel.Prof.Pinned = a.Default, a.Pinned
	}
	switch {
	case ch.OwnContext():
		sel.Key = kind.BrowserKey{Session: req.Session, Owner: req.Session}
		sel.Prof.Ephemeral = true
	case a.Child:
		sel.Key = kind.BrowserKey{Session: req.Session, Owner: req.Session + "/" + a.Handle}
		sel.Prof.Ephemeral = true
		sel.Prof.Parent = profile.OwnHandle
	default:
		p, err := reg.Find(a.ProfileID)
		if err != nil {
			return sel, err
		}
		sel.Key = kind.BrowserKey{Session: req.Session, Profile: a.ProfileID, Label: a.Label, Headed: req.Headed}
		if p.Remote() {
			sel.Key.Provider, sel.Key.Endpoint = p.Provider, p.Endpoint
		} else if sel.Key.Dir, err = reg.Dir(a.ProfileID); err != nil {
			return sel, err
		}
		sel.Prof.ID, sel.Prof.Label = a.ProfileID, a.Label
		sel.App = p.DesktopApp()
		sel.Row = s.RowOf(p)
	}
	if sel.Row.Name == "" {
		sel.Row, _ = s.row(provider.Chromium)
	}
	return sel, nil
}

// RowOf is p's provider row; a name the table does not have (a file
// written by a newer daemon) reads as a remote row that can do nothing
// but be refused.
func (s *Stage) RowOf(p profile.Profile) provider.Row {
	if r, ok := s.row(p.ProviderName()); ok {
		return r
	}
	return provider.Row{Name: p.ProviderName(), Kind: provider.KindTab, Tier: provider.TierRemote}
}

// Gate refuses, before anything is attempted, what the chosen profile's
// provider row cannot do (not_on_this_provider, naming it): the verb
// itself, a verb of the capability law the row names (the law's own first
// clause, on the row's stamp: the same refusal the verb's decide would
// give, here before the browser is reached), or --headed (a relaunch on
// our display) on somebody else's browser. For a remote row it fills the
// URL the browser is dialled at; a keyed row reads its key from the
// daemon's key store now, at connect time (no_key when none is set).
func (s *Stage) Gate(req wire.Request, a args.Args, sel *Selection) error {
	row := sel.Row
	if err := row.Refuse(req.Verb); err != nil {
		return err
	}
	if v, ok := lawVerb(req.Verb, a); ok {
		if r := row.Stamp(target.Probe{}).ProviderRefusal(v); r != nil {
			return r
		}
	}
	if req.Headed {
		if err := row.Refuse(provider.FeatureHeaded); err != nil {
			return err
		}
	}
	if !row.Remote() {
		return nil
	}
	if _, ok := s.row(row.Name); !ok {
		return target.Refuse(target.CodeNotOnThisProvider, "profile %s has provider %s, which this daemon does not know", sel.Key.Profile, target.Echo(row.Name)).
			With("provider", row.Name).With("providers", provider.NamesOf(s.host.Rows()))
	}
	sel.Key.Headed = false
	key := ""
	if row.KeyScope != "" {
		v, ok, err := s.host.Key(row.KeyScope)
		if err != nil {
			return target.Refuse(target.CodeInternal, "the key for %s could not be read: %v", row.Name, err)
		}
		if !ok {
			return target.Refuse(target.CodeNoKey, "provider %s needs a key and none is set: vibespace-browser key set %s (it reads the key from stdin; the daemon keeps it)", row.Name, row.Name).
				With("provider", row.Name)
		}
		key = v
	}
	u, err := row.ConnectURL(sel.Key.Endpoint, key)
	if err != nil {
		return err
	}
	sel.Key.Connect = u
	return nil
}

// lawVerb is the verb of the capability law req is decided on first (the
// browser's words as the window's), as the verb table says: its gate
// refuses it on a row that cannot do it before the browser is reached. ok
// is false for a verb the law does not decide (open, navigation, the
// profile words).
func lawVerb(verbName string, a args.Args) (target.Verb, bool) {
	f, _ := verb.Of(verbName)
	return f.LawVerb(args.Ref(a) != "", args.Point(a) != nil)
}

// Attached is how an answer shows one attachment.
func (s *Stage) Attached(a profile.Attachment, count int) wire.ProfileInfo {
	p := wire.ProfileInfo{ID: a.ProfileID, Label: a.Label, Handle: a.Handle, Default: a.Default, Pinned: a.Pinned,
		Ephemeral: a.Ephemeral(), Attachments: count}
	if a.Child {
		p.Parent = profile.OwnHandle
	}
	s.Describe(&p)
	return p
}

// Describe fills what an answer says of a profile's browser now: a
// desktop app's backend and the window it runs as, or whether the CDP
// browser of the profile runs.
func (s *Stage) Describe(p *wire.ProfileInfo) {
	if p.ID == "" {
		return
	}
	var prof profile.Profile
	if reg, err := s.Registry(); err == nil {
		prof, _ = reg.Find(p.ID)
	}
	switch {
	case prof.DesktopApp():
		p.Backend, p.Running, p.Window = prof.Backend, false, ""
		if id, ok := s.host.AppWindow(p.ID); ok {
			p.Running, p.Window = true, id
		}
		return
	case prof.Remote():
		p.Provider, p.Endpoint = prof.Provider, prof.Endpoint
	}
	if b := s.host.Browser(); b != nil {
		p.Running = b.Running(p.ID)
	}
}

// Known names profile p as session sees it: its attachment when the
// session has it attached.
func (s *Stage) Known(reg *profile.Registry, session string, p profile.Profile) wire.ProfileInfo {
	atts := reg.Attachments(session)
	for _, a := range atts {
		if a.ProfileID == p.ID {
			return s.Attached(a, len(atts))
		}
	}
	pi := wire.ProfileInfo{ID: p.ID, Label: p.Label, Attachments: len(atts)}
	s.Describe(&pi)
	return pi
}

// profiles lists every registered profile; the caller's own attachments
// carry their handle.
func (s *Stage) profiles(reg *profile.Registry, req wire.Request) (wire.Response, error) {
	atts := reg.Attachments(req.Session)
	handle := map[string]profile.Attachment{}
	for _, a := range atts {
		if a.ProfileID != "" {
			handle[a.ProfileID] = a
		}
	}
	resp := wire.Response{Profiles: []wire.ProfileInfo{}}
	for _, p := range reg.List() {
		pi := wire.ProfileInfo{ID: p.ID, Label: p.Label, Attachments: len(atts)}
		if a, ok := handle[p.ID]; ok {
			pi = s.Attached(a, len(atts))
		} else {
			s.Describe(&pi)
		}
		resp.Profiles = append(resp.Profiles, pi)
	}
	resp.Did = fmt.Sprintf("%d profile(s); %d attached to this session", len(resp.Profiles), len(atts))
	return resp, nil
}

// New registers a profile of new that is no desktop app (its directory is
// minted under the state directory; the label never reaches a path), or
// one of somebody else's browser when row is remote. It does not attach
// it.
func (s *Stage) New(req wire.Request, a args.New) (wire.Response, error) {
	reg, err := s.Registry()
	if err != nil {
		return wire.Response{}, err
	}
	row, ok := s.row(a.Provider)
	if ok && row.Remote() {
		return s.newRemote(reg, req, a, row)
	}
	var p profile.Profile
	if ok && row.Named {
		p, err = reg.NewNamed(a.Label, row.Name)
	} else {
		p, err = reg.New(a.Label)
	}
	if err != nil {
		return wire.Response{}, err
	}
	pi := wire.ProfileInfo{ID: p.ID, Label: p.Label, Provider: p.Provider, Attachments: len(reg.Attachments(req.Session))}
	return wire.Response{Profile: &pi, Did: fmt.Sprintf("created profile %q (%s); attach it with: use %s", p.Label, p.ID, p.ID)}, nil
}

// newRemote registers a profile of somebody else's browser (provider
// cdp, cloud:<name>) at its endpoint, checked against the row (the core's
// check of new did). Nothing is dialled yet: the first page verb connects.
func (s *Stage) newRemote(reg *profile.Registry, req wire.Request, a args.New, row provider.Row) (wire.Response, error) {
	ep, err := row.CheckEndpoint(a.Endpoint)
	if err != nil {
		return wire.Response{}, err
	}
	p, err := reg.NewRemote(a.Label, row.Name, ep)
	if err != nil {
		return wire.Response{}, err
	}
	pi := wire.ProfileInfo{ID: p.ID, Label: p.Label, Provider: p.Provider, Endpoint: p.Endpoint, Attachments: len(reg.Attachments(req.Session))}
	did := fmt.Sprintf("created profile %q (%s) of provider %s", p.Label, p.ID, row.Name)
	if ep != "" {
		did += " at " + ep
	}
	did += fmt.Sprintf(" (its browser is not ours: never started, switched or stopped by the daemon); attach it with: use %s", p.ID)
	if row.KeyScope != "" {
		if _, ok, err := s.host.Key(row.KeyScope); !ok || err != nil {
			did += fmt.Sprintf("; set its key first: vibespace-browser key set %s", row.Name)
		}
	}
	return wire.Response{Profile: &pi, Did: did}, nil
}

// use attaches a profile to the session, under an alias if given.
func (s *Stage) use(reg *profile.Registry, req wire.Request, u args.Use) (wire.Response, error) {
	ref := u.Label
	if ref == "" {
		ref = req.Profile
	}
	who := req.Subject()
	use := reg.Use
	if req.ForOther() != "" {
		use = reg.UseFor
	}
	a, err := use(who, ref, u.Alias)
	if err != nil {
		return wire.Response{}, err
	}
	atts := reg.Attachments(who)
	pi := s.Attached(a, len(atts))
	did := fmt.Sprintf("attached profile %q (%s) as %s", a.Label, a.ProfileID, a.Handle)
	if req.ForOther() != "" {
		did += " to session " + who + "; its next command is refused once with profile_changed"
	} else if len(atts) > 1 {
		did += fmt.Sprintf("; with %d attachments, name one with --profile <handle> on each command", len(atts))
	}
	return wire.Response{Profile: &pi, Attachments: s.attachmentList(reg, who), Did: did}, nil
}

func (s *Stage) attachmentList(reg *profile.Registry, session string) []wire.ProfileInfo {
	atts := reg.Attachments(session)
	out := make([]wire.ProfileInfo, 0, len(atts))
	for _, a := range atts {
		out = append(out, s.Attached(a, len(atts)))
	}
	return out
}

// attachments lists the session's attachment set.
func (s *Stage) attachments(reg *profile.Registry, req wire.Request) (wire.Response, error) {
	who := req.Subject()
	list := s.attachmentList(reg, who)
	var hs []string
	for _, a := range list {
		h := a.Handle
		if a.Default {
			h += " (default)"
		}
		hs = append(hs, h)
	}
	did := "no attachments: commands act in this session's own ephemeral context"
	if len(hs) > 0 {
		did = fmt.Sprintf("%d attachment(s): %s", len(hs), strings.Join(hs, ", "))
	}
	if req.ForOther() != "" {
		did = "session " + who + ": " + did
	}
	return wire.Response{Attachments: list, Did: did}, nil
}

// detach removes an attachment (Request.Profile names its handle; "" the
// only one). The session's tabs in what it removed are closed; a child's
// or own ephemeral context is disposed.
func (s *Stage) detach(ctx context.Context, reg *profile.Registry, req wire.Request) (wire.Response, error) {
	other := req.ForOther() != ""
	who := req.Subject()
	sreq := req // as the session itself would have sent it: its tabs' context keys
	sreq.Session = who
	detach := reg.Detach
	if other {
		detach = reg.DetachFor
	}
	removed, err := detach(who, req.Profile)
	if err != nil {
		return wire.Response{}, err
	}
	var names []string
	for _, a := range removed {
		sel, err := s.selectionOf(reg, sreq, profile.Choice{Attachment: &a})
		if err != nil {
			continue
		}
		if a.Own {
			// The own context stays the session's: only the attachment went.
			names = append(names, a.Handle)
			continue
		}
		s.host.CloseTabs(ctx, who, sel.Key)
		if b := s.host.Browser(); sel.Key.Profile == "" && b != nil {
			b.Release(ctx, sel.Key)
		}
		names = append(names, a.Handle)
	}
	did := "nothing was attached; nothing changed"
	if other {
		did = "session " + who + " had nothing attached; nothing changed"
	}
	switch {
	case len(names) > 0 && other:
		did = "detached " + strings.Join(names, ", ") + " from session " + who + "; its tabs there were closed, and its next command is refused once with profile_changed"
	case len(names) > 0:
		did = "detached " + strings.Join(names, ", ") + "; your tabs there were closed"
	}
	return wire.Response{Attachments: s.attachmentList(reg, who), Did: did}, nil
}

// pin makes a handle the session's pinned default (args.Pin's Profile, else
// the request's --profile), or unpins (args.Pin's None).
func (s *Stage) pin(reg *profile.Registry, req wire.Request, a args.Pin) (wire.Response, error) {
	h := a.Profile
	if h == "" {
		h = req.Profile
	}
	if a.None {
		h = ""
	} else if h == "" {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "pin needs a handle, or --none to unpin")
	}
	who := req.Subject()
	pin := reg.Pin
	if req.ForOther() != "" {
		pin = reg.PinFor
	}
	if err := pin(who, h); err != nil {
		return wire.Response{}, err
	}
	did := "unpinned; the default stays where it is"
	if h != "" {
		did = "pinned " + h + " as the default"
	}
	if req.ForOther() != "" {
		did = "pinned " + h + " as the default of session " + who
		if h == "" {
			did = "unpinned session " + who + "'s default; it stays where it is"
		}
	}
	return wire.Response{Attachments: s.attachmentList(reg, who), Did: did}, nil
}

// newChild mints a child handle: an ephemeral context of its own, reaped
// with the parent's attachments, named in the live view by its task
// (--task) or else "Helper <n>".
func (s *Stage) newChild(reg *profile.Registry, req wire.Request, c args.Child) (wire.Response, error) {
	a, err := reg.NewChildTask(req.Session, c.Task)
	if err != nil {
		return wire.Response{}, err
	}
	atts := reg.Attachments(req.Session)
	pi := s.Attached(a, len(atts))
	return wire.Response{Profile: &pi, Attachments: s.attachmentList(reg, req.Session),
		Did: fmt.Sprintf("minted child %s: its own ephemeral context; give it to a sub-agent as VIBESPACE_BROWSER=%s", a.Handle, a.Handle)}, nil
}

// status answers what the session's browser side is: the profile a bare
// command would act on (or why there is none), its attachments, its tabs.
func (s *Stage) status(ctx context.Context, reg *profile.Registry, req wire.Request) (wire.Response, error) {
	resp := wire.Response{Attachments: s.attachmentList(reg, req.Session), Targets: []wire.TargetInfo{}}
	resp.Targets = append(resp.Targets, s.host.Tabs(req.Session)...)
	shared := "not running"
	if s.host.Browser().Running("") {
		shared = "running"
	}
	resp.Did = fmt.Sprintf("%d tab(s) of yours; %d attachment(s); the shared browser is %s", len(resp.Targets), len(resp.Attachments), shared)
	resp.Status = s.host.Status(ctx, req.Session) // the daemon's own (its PID among them): one call, not two
	return resp, nil
}
