package atspi

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/vibespace/vibespace/target"
)

// Node reads one object's own fields (role, name, states, interfaces,
// action names, text length; no children), fresh from the application.
// It is refused stale_ref when the object is gone or defunct, timeout when
// the application does not answer.
func (b *Bus) Node(ctx context.Context, o Object) (*target.Node, error) {
	s, rn, err := b.walk(ctx, o, WalkOptions{Depth: -1, NoCache: true, TextMax: 1})
	if err != nil {
		return nil, err
	}
	n := s.Root
	if rn.err != nil {
		return nil, objRefusal(o, "reading the object", rn.err)
	}
	if n.Has("defunct") {
		return nil, target.Refuse(target.CodeStaleRef, "the object is gone (defunct); take a new snapshot").With("object", o.Key())
	}
	return n, nil
}

// DoAction performs one of the object's own actions (Action.DoAction) and
// returns the name of the action done. With name empty (or "click") it does
// the first of click, press, activate, toggle, jump, open that the object
// declares, else its action 0 (AT-SPI's default action, also when its name
// is empty, as many toolkits leave it) unless that is a GTK 4 action-group
// command ("window.close", "clipboard.copy"); with another name, that action —
// matched case-insensitively against the toolkit's names (GetName), then
// the localized ones a snapshot shows — or a refusal.
//
// Refusals: no_action when the object exposes no Action interface or not
// the action asked for (the facts name its interfaces and actions; there is
// never a fall-back to a coordinate click), not_sensitive when it is greyed
// out, declined when the application answers that it did not do it,
// stale_ref when it is gone.
func (b *Bus) DoAction(ctx context.Context, o Object, name string) (string, error) {
	n, err := b.Node(ctx, o)
	if err != nil {
		return "", err
	}
	return b.DoActionOn(ctx, o, n, name)
}

// DoActionOn is DoAction on an object whose own fields n were read already
// (Node): it asks the application only the names of its actions and does
// the one chosen, with n's refusals.
func (b *Bus) DoActionOn(ctx context.Context, o Object, n *target.Node, name string) (string, error) {
	if !n.Implements("Action") || len(n.Actions) == 0 {
		return "", describe(target.Refuse(target.CodeNoAction,
			"%s exposes no action (interfaces: %s); it cannot be clicked through the tree", label(n), strings.Join(n.Interfaces, ", ")), o, n)
	}
	// The snapshot shows the localized names GetActions gives; the
	// toolkit's own names (GetName) are what an agent usually asks for.
	names, err := b.actionNames(ctx, o, len(n.Actions))
	if err != nil {
		return "", err
	}
	i := chooseAction(names, name)
	if i < 0 && name != "" {
		i = chooseAction(n.Actions, name)
	}
	if i < 0 && (name == "" || strings.EqualFold(name, "click")) {
		return "", describe(target.Refuse(target.CodeNoAction, "%s has no click action (it has: %s); a click does none of them", label(n), strings.Join(names, ", ")), o, n)
	}
	if i < 0 {
		return "", describe(target.Refuse(target.CodeNoAction, "%s has no action %q (it has: %s)", label(n), name, strings.Join(names, ", ")), o, n)
	}
	if !n.Sensitive() {
		return "", describe(target.Refuse(target.CodeNotSensitive, "%s is disabled (not sensitive)", label(n)), o, n)
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceAction+".DoAction", int32(i)).boolean()
	if err != nil {
		return "", objRefusal(o, "DoAction", err)
	}
	done := names[i]
	if done == "" {
		done = "#" + strconv.Itoa(i)
	}
	if !ok {
		return "", describe(target.Refuse(target.CodeDeclined, "%s declined its action %q", label(n), done), o, n)
	}
	return done, nil
}

// actionNames asks the object for the toolkit's own name of each of its
// count actions (Action.GetName), all at once.
func (b *Bus) actionNames(ctx context.Context, o Object, count int) ([]string, error) {
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	rt := b.route(cctx, o.Name)
	deadline, _ := cctx.Deadline()
	ch := make(chan reply, count)
	serials := make([]uint32, count)
	rt.cork()
	for i := range serials {
		serials[i] = rt.send(deadline, o.Path, ifaceAction+".GetName", ch, i, int32(i))
	}
	rt.uncork(true)
	names := make([]string, count)
	var first error
	for got := 0; got < count; got++ {
		var r reply
		select {
		case r = <-ch:
		case <-cctx.Done():
			for _, s := range serials {
				rt.c.forget(s)
			}
			return nil, objRefusal(o, "Action.GetName", cctx.Err())
		}
		s, err := r.str()
		if err != nil && first == nil {
			first = objRefusal(o, "Action.GetName", err)
		}
		names[r.tag.(int)] = s
	}
	return names, first
}

// chooseAction picks the index of the action to do among names (see
// DoAction), or -1. A click does target.ClickAction: never one of GTK 4's
// action-group commands ("window.close" on a window, "clipboard.copy" on a
// label) for want of a default action.
func chooseAction(names []string, want string) int {
	if want != "" && !strings.EqualFold(want, "click") {
		return slices.IndexFunc(names, func(s string) bool { return strings.EqualFold(s, want) })
	}
	return target.ClickAction(names)
}

// GrabFocus asks the application to focus the object
// (Component.GrabFocus). Refused no_focus when the object cannot take focus
// (no Component interface, or not focusable), not_sensitive when it is
// greyed out, declined when the application answers false, stale_ref when
// it is gone.
func (b *Bus) GrabFocus(ctx context.Context, o Object) error {
	n, err := b.Node(ctx, o)
	if err != nil {
		return err
	}
	switch {
	case !n.Implements("Component"):
		return describe(target.Refuse(target.CodeNoFocus, "%s cannot take focus (no Component interface)", label(n)), o, n)
	case !n.Has("focusable"):
		return describe(target.Refuse(target.CodeNoFocus, "%s cannot take focus (not focusable)", label(n)), o, n).With("states", n.States)
	case !n.Sensitive():
		return describe(target.Refuse(target.CodeNotSensitive, "%s is disabled (not sensitive); it takes no focus", label(n)), o, n)
	}
	cctx, cancel := withCallTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	ok, err := b.route(cctx, o.Name).call(cctx, o.Path, ifaceComponent+".GrabFocus").boolean()
	if err != nil {
		return objRefusal(o, "GrabFocus", err)
	}
	if !ok {
		return describe(target.Refuse(target.CodeDeclined, "%s declined the focus", label(n)), o, n)
	}
	return nil
}

// label names a node for a refusal sentence: `push button "Alpha"`.
func label(n *target.Node) string {
	if n.Name == "" {
		return n.Role
	}
	return n.Role + " " + strconvQuote(n.Name)
}

// describe attaches the node's facts to a refusal.
func describe(r *target.Refusal, o Object, n *target.Node) *target.Refusal {
	r.With("object", o.Key()).With("role", n.Role).With("interfaces", n.Interfaces)
	if n.Name != "" {
		r.With("name", n.Name)
	}
	if len(n.Actions) > 0 {
		r.With("actions", n.Actions)
	}
	return r
}
