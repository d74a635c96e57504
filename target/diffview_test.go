package target

import (
	"strings"
	"testing"
)

// TestDiffInteractiveShowsWhatAppeared: snapshot -i --diff after a form's
// submit lists the fields that went and the message that came — a
// paragraph nothing can act on — in its place, a status line's new words
// and a text that now says more; what changed otherwise outside the
// interactive view (words that only went) stays out of it, as it stays in
// the whole diff.
func TestDiffInteractiveShowsWhatAppeared(t *testing.T) {
	refs := NewRefTable()
	s := people()
	s.Root.Children = append(s.Root.Children, &Node{Role: "status bar", Key: "status"})
	s.Root.Find(func(x *Node) bool { return x.Key == "cell1" }).Children[0].Name = "Ada Lovelace (1815)"
	refs.Assign(s)
	n := again(s)
	n.Root.Children[1] = &Node{Role: "paragraph", Key: "thanks", Children: []*Node{{Role: "static", Name: "Thanks, Ada: you are signed up"}}}
	n.Root.Find(func(x *Node) bool { return x.Key == "status" }).Children = []*Node{{Role: "static", Name: "Saved"}}
	n.Root.Find(func(x *Node) bool { return x.Key == "cell1" }).Children[0].Name = "Ada Lovelace"   // words went
	n.Root.Find(func(x *Node) bool { return x.Key == "cell2" }).Children[0].Name = "Alan M. Turing" // words came
	refs.Assign(n)

	d := DiffInteractive(s, n)
	text := d.Text()
	thanks := `+ paragraph ` + refOf(t, n, "thanks") + ` ="Thanks, Ada: you are signed up"`
	status := `~ status bar ` + refOf(t, n, "status") + `: text "" → "Saved"`
	turing := `~ cell ` + refOf(t, n, "cell2") + `: text "Alan Turing" → "Alan M. Turing"`
	for _, want := range []string{thanks, status, turing, `- entry "Query" ` + refOf(t, s, "q"), refOf(t, s, "dark")} {
		if !strings.Contains(text, want) {
			t.Errorf("the -i diff lacks %q:\n%s", want, text)
		}
	}
	if i, j := strings.Index(text, thanks), strings.Index(text, "\n- "); j < 0 || i > j {
		t.Errorf("the message is not in its place, before the removed fields:\n%s", text)
	}
	if strings.Contains(text, "1815") {
		t.Errorf("the -i diff shows words that only went, outside the interactive view:\n%s", text)
	}
	if d.Added < 1 || d.Changed < 2 || d.Removed < 2 {
		t.Errorf("counts %+v", d)
	}
	if whole := DiffSnapshots(s, n).Text(); !strings.Contains(whole, "1815") || !strings.Contains(whole, thanks) {
		t.Errorf("the whole diff:\n%s", whole)
	}

	// Nothing appeared: the -i diff is the interactive views' diff alone.
	m := again(s)
	dark := m.Root.Find(func(x *Node) bool { return x.Key == "dark" })
	dark.States = append(dark.States, "checked")
	m.Root.Find(func(x *Node) bool { return x.Key == "cell1" }).Children[0].Name = "Ada"
	if got, want := DiffInteractive(s, m).Text(), DiffSnapshots(s.InteractiveView(), m.InteractiveView()).Text(); got != want {
		t.Errorf("with nothing new:\n%s\nwant the interactive views' diff:\n%s", got, want)
	}
}
