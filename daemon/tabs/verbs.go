package tabs

import (
	"context"
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// open navigates the session's current tab to URL, or opens a tab when it
// has none.
func (s *Stage) open(ctx context.Context, c *stage.Call) (wire.Response, error) {
	req, a := c.Req, c.Args.(args.OpenURL)
	if strings.TrimSpace(a.URL) == "" {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "open needs a URL")
	}
	bc, sel, err := s.browserContext(ctx, c)
	if err != nil {
		return wire.Response{}, err
	}
	verb := "opened %s (%q) in tab %s"
	if id, ok := s.current.Get(req.Session, sel.Key); ok {
		err = s.reach(ctx, c, sel, id, true)
		if target.CodeOf(err) == target.CodeTabGone {
			err = nil // (a tab gone was not reached: a new one opens)
		}
		if err != nil {
			return wire.Response{}, err
		}
	}
	if s.host.Reached(c) == nil {
		if err := s.newTab(ctx, c, sel, bc); err != nil {
			return wire.Response{}, err
		}
		verb = "opened %s (%q) in a new tab %s; you hold its lease"
	}
	id := c.Target.ID()
	nav, ok := s.host.Reached(c).(kind.Navigator)
	if !ok {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s loads no addresses", id)
	}
	return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
		if err := nav.Navigate(ctx, a.URL); err != nil {
			return wire.Response{}, err
		}
		info, err := s.host.Refresh(ctx, id)
		return wire.Response{URL: info.App, Did: fmt.Sprintf(verb, info.App, info.Title, id)}, err
	})
}

// tab lists, opens, closes or selects the session's tabs in the chosen
// context. Only the session's own tabs are shown; others are counted.
func (s *Stage) tab(ctx context.Context, c *stage.Call) (wire.Response, error) {
	req, a := c.Req, c.Args.(args.Tab)
	action := a.Action
	if action == "" {
		action = "list"
	}
	switch action {
	case "list", "new", "close", "select":
	default:
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "tab %s: use list, new, close or select", target.Echo(action))
	}
	var id target.ID
	if action == "select" || action == "close" && req.Target != "" {
		var err error
		if id, err = target.ParseID(req.Target); err != nil {
			return wire.Response{}, err
		}
		if id.Kind() != target.KindTab {
			return wire.Response{}, target.WrongKind(id, target.KindTab.Words().CLI)
		}
	}
	bc, sel, err := s.browserContext(ctx, c)
	if err != nil {
		return wire.Response{}, err
	}
	switch action {
	case "list":
		return s.tabList(ctx, c, sel)
	case "new":
		if err := s.newTab(ctx, c, sel, bc); err != nil {
			return wire.Response{}, err
		}
		id := c.Target.ID()
		return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
			if a.URL != "" {
				nav, ok := s.host.Reached(c).(kind.Navigator)
				if !ok {
					return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s loads no addresses", id)
				}
				if err := nav.Navigate(ctx, a.URL); err != nil {
					return wire.Response{}, err
				}
			}
			info, err := s.host.Refresh(ctx, id)
			return wire.Response{URL: info.App, Did: fmt.Sprintf("opened tab %s; it is your current tab", id)}, err
		})
	case "select":
		if err := s.reach(ctx, c, sel, id, false); err != nil {
			return wire.Response{}, err
		}
		s.current.Set(req.Session, sel.Key, id)
		return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
			info := s.host.Seen(c)
			return wire.Response{URL: info.App, Did: fmt.Sprintf("tab %s (%q) is your current tab", id, info.Title)}, nil
		})
	}
	// close: the tab named, else the current one
	var reach error
	if req.Target == "" {
		reach = s.reachCurrent(ctx, c, sel)
		if c.Target != nil {
			id = c.Target.ID()
		}
	} else {
		reach = s.reach(ctx, c, sel, id, false)
	}
	if reach != nil {
		return wire.Response{}, reach
	}
	c.Req.Target = string(id) // the audit row names the tab closed, as for a bare close
	gone, err := s.host.CloseTab(ctx, c)
	if err != nil {
		return wire.Response{}, err
	}
	return wire.Response{Target: gone, Did: fmt.Sprintf("closed tab %s", id)}, nil
}

// tabList answers the session's own tabs in the context, and how many other
// tabs there are, never what they are.
func (s *Stage) tabList(ctx context.Context, c *stage.Call, sel Selection) (wire.Response, error) {
	req := c.Req
	cur, _ := s.current.Get(req.Session, sel.Key)
	mine, others := s.tabsIn(ctx, req.Session, sel.Key)
	resp := wire.Response{Targets: []wire.TargetInfo{}}
	var lines []string
	for _, ti := range mine {
		resp.Targets = append(resp.Targets, ti)
		mark := " "
		if ti.ID == cur {
			mark = "*"
		}
		lines = append(lines, fmt.Sprintf("%s %s %q %s", mark, ti.ID, ti.Title, ti.App))
	}
	resp.Text = strings.Join(lines, "\n")
	resp.Did = fmt.Sprintf("%d tab(s) of yours in %s", len(resp.Targets), where(sel))
	if others > 0 {
		resp.Did += fmt.Sprintf("; %d other session(s)' tab(s) there are not shown", others)
	}
	return resp, nil
}

// tabsIn is the session's tabs in key's context, in tab order, each read
// afresh (a tab that went meanwhile is left out), and how many other
// sessions' tabs there are.
func (s *Stage) tabsIn(ctx context.Context, session string, key kind.BrowserKey) (mine []wire.TargetInfo, others int) {
	for _, id := range s.host.TabsOf(key) {
		if seen, _ := s.env.Sees(session, id); !seen {
			others++
			continue
		}
		ti, err := s.host.Listed(ctx, id)
		if target.CodeOf(err) == target.CodeTabGone {
			continue
		}
		mine = append(mine, *ti)
	}
	return mine, others
}

// get answers the page's text (or, with a ref, that node's), URL or
// title.
func (s *Stage) get(ctx context.Context, c *stage.Call) (wire.Response, error) {
	a := c.Args.(args.Get)
	return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
		switch a.What {
		case "url", "title":
			// As the page has them now (a page may retitle itself).
			info, err := s.host.Relist(ctx, c)
			if err != nil {
				return wire.Response{}, err
			}
			if a.What == "url" {
				return wire.Response{URL: info.App, Text: info.App}, nil
			}
			return wire.Response{Text: info.Title}, nil
		}
		if a.Ref != "" {
			return s.host.NodeText(ctx, c, a.Ref) // get text @ref: that node's
		}
		pr, ok := s.host.Reached(c).(kind.PageReader)
		if !ok {
			return wire.Response{}, target.Refuse(target.CodeNoText, "%s has no page text to read", c.Target.ID())
		}
		text, err := pr.Text(ctx)
		return wire.Response{Text: text}, err
	})
}

// eval evaluates an expression in the page and answers its value as
// JSON; a thrown error is script_error.
func (s *Stage) eval(ctx context.Context, c *stage.Call) (wire.Response, error) {
	ev, ok := s.host.Reached(c).(kind.Evaluator)
	if !ok {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s evaluates no script", c.Target.ID())
	}
	return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
		v, err := ev.Eval(ctx, c.Args.(args.Eval).Expr)
		if err != nil {
			return wire.Response{}, err
		}
		return wire.Response{Value: v}, nil
	})
}

// navVerb runs a navigation (back, forward, reload) and answers where the
// tab is now.
func (s *Stage) navVerb(ctx context.Context, c *stage.Call, did string, nav func(kind.Navigator, context.Context) error) (wire.Response, error) {
	n, ok := s.host.Reached(c).(kind.Navigator)
	if !ok {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s has no history", c.Target.ID())
	}
	return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
		if err := nav(n, ctx); err != nil {
			return wire.Response{}, err
		}
		info, err := s.host.Refresh(ctx, c.Target.ID())
		return wire.Response{URL: info.App, Did: fmt.Sprintf("%s: %s (%q)", did, info.App, info.Title)}, err
	})
}

// wait waits for a selector, a text or a URL, within the verb's time.
func (s *Stage) wait(ctx context.Context, c *stage.Call) (wire.Response, error) {
	w, ok := s.host.Reached(c).(kind.Waiter)
	if !ok {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "%s cannot be waited on", c.Target.ID())
	}
	a := c.Args.(args.Wait)
	return s.host.Locked(ctx, c, func(ctx context.Context) (wire.Response, error) {
		if err := w.Wait(ctx, kind.Wait{Selector: a.Selector, Text: a.Text, URL: a.URL}); err != nil {
			return wire.Response{}, err
		}
		return wire.Response{Did: "the page shows what was awaited"}, nil
	})
}
