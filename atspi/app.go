package atspi

import (
	"context"
	"slices"

	"github.com/godbus/dbus/v5"

	"github.com/vibespace/vibespace/target"
)

// App is one application registered on the accessibility bus.
type App struct {
	Name string // unique bus name on the accessibility bus
	PID  int    // 0 if the bus did not say
	Root Object // the application object (role "application")
}

// Desktop is the registry's desktop object, whose children are the
// applications.
func Desktop() Object { return Object{Name: registryName, Path: rootPath} }

// Applications lists the applications on the registry's desktop with their
// PIDs (asked of the bus with GetConnectionUnixProcessID, all at once).
// A process can own more than one (GTK apps that activate
// xdg-desktop-portal-gtk bring it along): find applications by PID, not by
// position.
func (b *Bus) Applications(ctx context.Context) ([]App, error) {
	refs, err := b.children(ctx, Desktop())
	if err != nil {
		return nil, err
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	apps := make([]App, 0, len(refs))
	calls := make([]*dbus.Call, 0, len(refs))
	ch := make(chan *dbus.Call, len(refs))
	dbusObj := b.conn.Object("org.freedesktop.DBus", "/org/freedesktop/DBus")
	for _, r := range refs {
		if r.IsNull() {
			continue
		}
		apps = append(apps, App{Name: r.Name, Root: r})
		calls = append(calls, dbusObj.GoWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, ch, r.Name))
	}
	b.counted(len(calls))
	for i, c := range calls {
		<-c.Done
		var pid uint32
		if c.Err == nil && c.Store(&pid) == nil {
			apps[i].PID = int(pid)
		}
	}
	b.forgetToolkits(apps)
	return apps, nil
}

// forgetToolkits forgets the toolkits of the applications that are no
// longer on the desktop.
func (b *Bus) forgetToolkits(apps []App) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for name := range b.toolkits {
		if !slices.ContainsFunc(apps, func(a App) bool { return a.Name == name }) {
			delete(b.toolkits, name)
		}
	}
}

// AppByPID finds the application process pid registered. It is refused
// app_not_found when no application of that process is on the desktop (it
// may not have registered yet: poll with a deadline). When a process owns
// several, the one with a frame (a top-level window) wins.
func (b *Bus) AppByPID(ctx context.Context, pid int) (App, error) {
	apps, err := b.Applications(ctx)
	if err != nil {
		return App{}, err
	}
	var found []App
	for _, a := range apps {
		if a.PID == pid {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 0:
		return App{}, target.Refuse(target.CodeAppNotFound, "no accessible application of process %d on the desktop", pid).With("pid", pid)
	case 1:
		return found[0], nil
	}
	for _, a := range found {
		if fr, err := b.Frames(ctx, a); err == nil && len(fr) > 0 {
			return a, nil
		}
	}
	return found[0], nil
}

// children returns an object's children in GetChildren order.
func (b *Bus) children(ctx context.Context, o Object) ([]Object, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	r := b.route(cctx, o.Name).call(cctx, o.Path, ifaceAccessible+".GetChildren")
	var out []Object
	if r.err == nil {
		r.body.array(8, func() { out = append(out, r.body.objRef()) })
		r.err = r.body.err
	}
	if r.err != nil {
		return nil, objRefusal(o, "GetChildren", r.err)
	}
	return out, nil
}
