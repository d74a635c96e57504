package main_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vibespace/vibespace/target"
	"github.com/vibespace/vibespace/testenv"
)

// TestFindSaysOnAWindow: on a window, find answers with the text that
// matched, around the match: gtk3-widget-factory's text view holds a
// Lorem ipsum of many lines, and a word of its third line is shown in its
// line, not the text's first 80 characters. The oracle is the view's text
// as get text @ref answers it (the node's own text value).
func TestFindSaysOnAWindow(t *testing.T) {
	testenv.NeedIntegration(t, "gtk3-widget-factory")
	e := newEnv(t)
	e.StartServe()
	resp := e.Answer("s1", "open", "gtk3-widget-factory")
	if !resp.OK {
		t.Fatalf("open: %+v", resp)
	}
	e.ReadDesk()
	id := string(resp.Target.ID)
	full := e.Snapshot("s1", id)
	view := full.Root.Find(func(n *target.Node) bool {
		return n.Role == "text" && strings.Contains(n.Text, "\n") && strings.Contains(n.Text, "taciti")
	})
	if view == nil || view.Ref == "" {
		t.Fatalf("no text view holding lines of Lorem ipsum:\n%s", full.Text())
	}
	text := e.Answer("s1", "get", id, "text", view.Ref).Text
	out := e.OK("s1", "find", id, "taciti")
	m := regexp.MustCompile(`(?m)^text ` + view.Ref + ` ="(.*)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("find taciti:\n%s", out)
	}
	said := strings.TrimSuffix(strings.TrimPrefix(m[1], "…"), "…")
	if !strings.HasPrefix(said, "Class aptent taciti") || strings.Contains(said, `\n`) || !strings.Contains(text, said) || len([]rune(m[1])) > target.FindLine+2 {
		t.Fatalf("find taciti shows %q; the view holds %q", m[1], text)
	}
}
