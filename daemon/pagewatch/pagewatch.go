// Package pagewatch is the page's watcher of an act (cdp's scripts, run by
// a Chromium tab over CDP and a Firefox tab over WebDriver BiDi) in the
// tab kinds' words: what it told as kind.Changes, an element's facts as
// the node the effect check compares, and how long one act's watcher
// lives. Both browsers' tabs answer the verifier through it, so the same
// act on the same page says the same effect on either.
package pagewatch

import (
	"time"

	"github.com/vibespace/vibespace/cdp"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/target"
)

// Life bounds the page's watcher of one act (cdp.WatchArmJS): it disarms
// itself then, if the verb did not end before; a timer its act's handlers
// schedule counts as pending when it is to run within half of it.
const Life = 3 * time.Second

// Changes is what the watcher told, in the kind's words: the document
// left (gone, an address's hash or history moving, an unload) is
// "navigated"; a node added or removed is not known by its old text.
func Changes(told cdp.Told) kind.Changes {
	out := kind.Changes{Mark: told.Mark, Quiet: told.Quiet, Pending: told.Pending}
	if told.Gone {
		out.Seen = append(out.Seen, kind.Change{What: "navigated"})
	}
	for _, c := range told.Changes {
		kc := kind.Change{Role: c.Node, What: c.What, From: c.From, To: c.To, Known: true, Secret: c.Secret}
		switch c.What {
		case "hashchange", "popstate", "beforeunload", "pagehide":
			kc = kind.Change{What: "navigated"}
		case "added", "removed":
			kc.Known = false
		}
		out.Seen = append(out.Seen, kc)
	}
	return out
}

// FactsNode is an element's facts as a node: its states, and its value
// (a field's) or text as the node's text.
func FactsNode(f cdp.NodeFacts) *target.Node {
	out := &target.Node{Role: f.Role, Name: f.Name, Text: f.Text, TextLen: f.TextLen}
	if out.Role == "" {
		out.Role = f.Tag
	}
	if f.Tag == "input" || f.Tag == "textarea" || f.Tag == "select" {
		out.Text, out.TextLen = f.Value, len([]rune(f.Value))
	}
	for _, s := range []struct {
		on   bool
		name string
	}{
		{f.Checked, "checked"}, {f.Selected, "selected"}, {f.Focused, "focused"}, {f.Disabled, "disabled"},
		{f.Expanded == "true", "expanded"}, {f.Pressed == "true", "pressed"},
	} {
		if s.on {
			out.States = append(out.States, s.name)
		}
	}
	return out
}
