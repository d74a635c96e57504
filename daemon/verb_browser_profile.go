package daemon

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/profile"
	"github.com/vibespace/vibespace/provider"
	"github.com/vibespace/vibespace/target"
)

// registry is the profile registry of the state directory, opened on first
// use.
func (d *Daemon) registry() (*profile.Registry, error) {
	d.br.regOnce.Do(func() {
		d.br.reg, d.br.regErr = profile.Open(d.cfg.StateDir, d.cfg.Now)
	})
	return d.br.reg, d.br.regErr
}

// choose resolves req's profile choice (Request.Profile: --profile or
// VIBESPACE_BROWSER) to a browser context. The registry's refusals
// (profile_required, profile_changed, path_not_handle, unknown_profile)
// pass through with their facts.
func (d *Daemon) choose(ctx context.Context, req Request) (selection, error) {
	reg, err := d.registry()
	if err != nil {
		return selection{}, err
	}
	ch, err := reg.Resolve(req.Session, req.Profile)
	if err != nil {
		return selection{}, err
	}
	return d.selectionOf(reg, req, ch)
}

// selectionOf turns a choice into the context key and the ProfileInfo.
func (d *Daemon) selectionOf(reg *profile.Registry, req Request, ch profile.Choice) (selection, error) {
	sel := selection{prof: ProfileInfo{Handle: ch.Handle(), Attachments: ch.Count}}
	a := ch.Attachment
	if a != nil {
		sel.prof.Default, sel.prof.Pinned = a.Default, a.Pinned
	}
	switch {
	case ch.OwnContext():
		sel.key = kind.BrowserKey{Session: req.Session, Owner: req.Session}
		sel.prof.Ephemeral = true
	case a.Child:
		sel.key = kind.BrowserKey{Session: req.Session, Owner: req.Session + "/" + a.Handle}
		sel.prof.Ephemeral = true
		sel.prof.Parent = profile.OwnHandle
	default:
		p, err := reg.Find(a.ProfileID)
		if err != nil {
			return sel, err
		}
		sel.key = kind.BrowserKey{Session: req.Session, Profile: a.ProfileID, Label: a.Label, Headed: req.Headed}
		if p.Remote() {
			sel.key.Provider, sel.key.Endpoint = p.Provider, p.Endpoint
		} else if sel.key.Dir, err = reg.Dir(a.ProfileID); err != nil {
			return sel, err
		}
		sel.prof.ID, sel.prof.Label = a.ProfileID, a.Label
		sel.app = p.DesktopApp()
		sel.row = d.rowOf(p)
	}
	if sel.row.Name == "" {
		sel.row, _ = d.row(provider.Chromium)
	}
	return sel, nil
}

// rowOf is p's provider row; a name the table does not have (a file
// written by a newer daemon) reads as a remote row that can do nothing
// but be refused.
func (d *Daemon) rowOf(p profile.Profile) provider.Row {
	if r, ok := d.row(p.ProviderName()); ok {
		return r
	}
	return provider.Row{Name: p.ProviderName(), Kind: provider.KindTab, Tier: provider.TierRemote}
}

// providerGate refuses, before anything is attempted, what the chosen
// profile's provider row cannot do (not_on_this_provider, naming it): the
// verb itself, a verb of the capability law the row names (the law's own
// first clause, on the row's stamp: the same refusal the verb's decide
// would give, here before the browser is reached), or --headed (a
// relaunch on our display) on somebody else's browser. For a remote row
// it fills the URL the browser is dialled at; a keyed row reads its key
// from the daemon's key store now, at connect time (no_key when none is
// set).
func (d *Daemon) providerGate(req Request, sel *selection) error {
	row := sel.row
	if err := row.Refuse(req.Verb); err != nil {
		return err
	}
	if v, ok := lawVerb(req); ok {
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
	if _, ok := d.row(row.Name); !ok {
		return target.Refuse(target.CodeNotOnThisProvider, "profile %s has provider %s, which this daemon does not know", sel.key.Profile, target.Echo(row.Name)).
			With("provider", row.Name).With("providers", d.providerNames())
	}
	sel.key.Headed = false
	key := ""
	if row.KeyScope != "" {
		v, ok, err := d.keys.Get(row.KeyScope)
		if err != nil {
			return target.Refuse(codeInternal, "the key for %s could not be read: %v", row.Name, err)
		}
		if !ok {
			return target.Refuse(target.CodeNoKey, "provider %s needs a key and none is set: vibespace-browser key set %s (it reads the key from stdin; the daemon keeps it)", row.Name, row.Name).
				With("provider", row.Name)
		}
		key = v
	}
	u, err := row.ConnectURL(sel.key.Endpoint, key)
	if err != nil {
		return err
	}
	sel.key.Connect = u
	return nil
}

// attachmentInfo is how an answer shows one attachment.
func (d *Daemon) attachmentInfo(a profile.Attachment, count int) ProfileInfo {
	p := ProfileInfo{ID: a.ProfileID, Label: a.Label, Handle: a.Handle, Default: a.Default, Pinned: a.Pinned,
		Ephemeral: a.Ephemeral(), Attachments: count}
	if a.Child {
		p.Parent = profile.OwnHandle
	}
	d.profileRun(&p)
	return p
}

// profileVerb is the common start of the profile words: the registry, or
// its failure as the answer.
func (d *Daemon) profileVerb(c *call, f func(reg *profile.Registry) (Response, error)) Response {
	reg, err := d.registry()
	if err != nil {
		return d.fail(c, err)
	}
	resp, err := f(reg)
	return d.finish(c, resp, err)
}

// forOther is the session whose attachment set req acts on when it is not
// the caller's own: use, detach, pin and attachments with --for are the
// operator's words for another session's set. That session's next command
// is refused once with profile_changed (it did not make the change), which
// is the point: an agent is never moved to another profile silently.
func forOther(req Request) string {
	if req.For == req.Session {
		return ""
	}
	return req.For
}

// subject is the session whose set req reads or changes.
func subject(req Request) string {
	if s := forOther(req); s != "" {
		return s
	}
	return req.Session
}

// browserProfiles lists every registered profile; the caller's own
// attachments carry their handle.
func (d *Daemon) browserProfiles(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		atts := reg.Attachments(req.Session)
		handle := map[string]profile.Attachment{}
		for _, a := range atts {
			if a.ProfileID != "" {
				handle[a.ProfileID] = a
			}
		}
		resp := Response{Profiles: []ProfileInfo{}}
		for _, p := range reg.List() {
			pi := ProfileInfo{ID: p.ID, Label: p.Label, Attachments: len(atts)}
			if a, ok := handle[p.ID]; ok {
				pi = d.attachmentInfo(a, len(atts))
			} else {
				d.profileRun(&pi)
			}
			resp.Profiles = append(resp.Profiles, pi)
		}
		resp.Did = fmt.Sprintf("%d profile(s); %d attached to this session", len(resp.Profiles), len(atts))
		return resp, nil
	})
}

// browserNew registers a profile (its directory is minted under the state
// directory; the label never reaches a path). It does not attach it. With
// --backend desktop-app it also attaches and starts it (desktopapp.go).
func (d *Daemon) browserNew(ctx context.Context, c *call) Response {
	req := c.Req
	if isDesktopApp(req) {
		return d.newDesktopApp(ctx, c)
	}
	if row, ok := d.row(req.Provider); ok && row.Remote() {
		return d.newRemote(c, row)
	}
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		p, err := reg.New(req.Label)
		if err != nil {
			return Response{}, err
		}
		pi := ProfileInfo{ID: p.ID, Label: p.Label, Attachments: len(reg.Attachments(req.Session))}
		return Response{Profile: &pi, Did: fmt.Sprintf("created profile %q (%s); attach it with: use %s", p.Label, p.ID, p.ID)}, nil
	})
}

// newRemote registers a profile of somebody else's browser (provider
// cdp, cloud:<name>) at its endpoint, checked against the row (checkNew
// did). Nothing is dialled yet: the first page verb connects.
func (d *Daemon) newRemote(c *call, row provider.Row) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		ep, err := row.CheckEndpoint(req.Endpoint)
		if err != nil {
			return Response{}, err
		}
		p, err := reg.NewRemote(req.Label, row.Name, ep)
		if err != nil {
			return Response{}, err
		}
		pi := ProfileInfo{ID: p.ID, Label: p.Label, Provider: p.Provider, Endpoint: p.Endpoint, Attachments: len(reg.Attachments(req.Session))}
		did := fmt.Sprintf("created profile %q (%s) of provider %s", p.Label, p.ID, row.Name)
		if ep != "" {
			did += " at " + ep
		}
		did += fmt.Sprintf(" (its browser is not ours: never started, switched or stopped by the daemon); attach it with: use %s", p.ID)
		if row.KeyScope != "" && !d.keys.Has(row.KeyScope) {
			did += fmt.Sprintf("; set its key first: vibespace-browser key set %s", row.Name)
		}
		return Response{Profile: &pi, Did: did}, nil
	})
}

// browserUse attaches a profile to the session, under an alias if given.
func (d *Daemon) browserUse(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		ref := req.Label
		if ref == "" {
			ref = req.Profile
		}
		who := subject(req)
		use := reg.Use
		if forOther(req) != "" {
			use = reg.UseFor
		}
		a, err := use(who, ref, req.Alias)
		if err != nil {
			return Response{}, err
		}
		atts := reg.Attachments(who)
		pi := d.attachmentInfo(a, len(atts))
		did := fmt.Sprintf("attached profile %q (%s) as %s", a.Label, a.ProfileID, a.Handle)
		if forOther(req) != "" {
			did += " to session " + who + "; its next command is refused once with profile_changed"
		} else if len(atts) > 1 {
			did += fmt.Sprintf("; with %d attachments, name one with --profile <handle> on each command", len(atts))
		}
		return Response{Profile: &pi, Attachments: d.attachmentList(reg, who), Did: did}, nil
	})
}

func (d *Daemon) attachmentList(reg *profile.Registry, session string) []ProfileInfo {
	atts := reg.Attachments(session)
	out := make([]ProfileInfo, 0, len(atts))
	for _, a := range atts {
		out = append(out, d.attachmentInfo(a, len(atts)))
	}
	return out
}

// browserAttachments lists the session's attachment set.
func (d *Daemon) browserAttachments(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		who := subject(req)
		list := d.attachmentList(reg, who)
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
		if forOther(req) != "" {
			did = "session " + who + ": " + did
		}
		return Response{Attachments: list, Did: did}, nil
	})
}

// browserDetach removes an attachment (Request.Profile names its handle;
// "" the only one). The session's tabs in what it removed are closed; a
// child's or own ephemeral context is disposed.
func (d *Daemon) browserDetach(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		other := forOther(req) != ""
		who := subject(req)
		sreq := req // as the session itself would have sent it: its tabs' context keys
		sreq.Session = who
		detach := reg.Detach
		if other {
			detach = reg.DetachFor
		}
		removed, err := detach(who, req.Profile)
		if err != nil {
			return Response{}, err
		}
		var names []string
		for _, a := range removed {
			sel, err := d.selectionOf(reg, sreq, profile.Choice{Attachment: &a})
			if err != nil {
				continue
			}
			if a.Own {
				// The own context stays the session's: only the attachment went.
				names = append(names, a.Handle)
				continue
			}
			d.closeSessionTabs(ctx, who, sel.key)
			if sel.key.Profile == "" && d.cfg.Browser != nil {
				d.cfg.Browser.Release(ctx, sel.key)
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
		return Response{Attachments: d.attachmentList(reg, who), Did: did}, nil
	})
}

// browserPin makes a handle the session's pinned default (Request.Profile),
// or unpins (Request.None).
func (d *Daemon) browserPin(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		h := req.Profile
		if h == "" {
			h = req.Label
		}
		if req.None {
			h = ""
		} else if h == "" {
			return Response{}, target.Refuse(target.CodeBadRequest, "pin needs a handle, or --none to unpin")
		}
		who := subject(req)
		pin := reg.Pin
		if forOther(req) != "" {
			pin = reg.PinFor
		}
		if err := pin(who, h); err != nil {
			return Response{}, err
		}
		did := "unpinned; the default stays where it is"
		if h != "" {
			did = "pinned " + h + " as the default"
		}
		if forOther(req) != "" {
			did = "pinned " + h + " as the default of session " + who
			if h == "" {
				did = "unpinned session " + who + "'s default; it stays where it is"
			}
		}
		return Response{Attachments: d.attachmentList(reg, who), Did: did}, nil
	})
}

// browserNewChild mints a child handle: an ephemeral context of its own,
// reaped with the parent's attachments, named in the live view by its task
// (--task) or else "Helper <n>".
func (d *Daemon) browserNewChild(ctx context.Context, c *call) Response {
	req := c.Req
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		a, err := reg.NewChildTask(req.Session, req.Task)
		if err != nil {
			return Response{}, err
		}
		atts := reg.Attachments(req.Session)
		pi := d.attachmentInfo(a, len(atts))
		return Response{Profile: &pi, Attachments: d.attachmentList(reg, req.Session),
			Did: fmt.Sprintf("minted child %s: its own ephemeral context; give it to a sub-agent as VIBESPACE_BROWSER=%s", a.Handle, a.Handle)}, nil
	})
}

// browserStatus answers what the session's browser side is: the profile
// a bare command would act on (or why there is none), its attachments,
// its tabs.
func (d *Daemon) browserStatus(ctx context.Context, c *call) Response {
	req := c.Req
	if d.cfg.Browser == nil {
		return d.fail(c, noBrowser())
	}
	return d.profileVerb(c, func(reg *profile.Registry) (Response, error) {
		resp := Response{Attachments: d.attachmentList(reg, req.Session), Targets: []TargetInfo{}}
		for _, e := range d.entries(func(e *entry) bool { return e.tab != nil && e.rec.ExposedTo(req.Session) }) {
			resp.Targets = append(resp.Targets, *d.info(e))
		}
		shared := "not running"
		if d.cfg.Browser.Running("") {
			shared = "running"
		}
		resp.Did = fmt.Sprintf("%d tab(s) of yours; %d attachment(s); the shared browser is %s", len(resp.Targets), len(resp.Attachments), shared)
		resp.Status = d.status(ctx, c).Status // the daemon's own (its PID among them): one call, not two
		return resp, nil
	})
}
