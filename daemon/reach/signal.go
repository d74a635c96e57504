package reach

import (
	"fmt"
	"strings"

	"github.com/vibespace/vibespace/daemon/wire"
)

// Rung is a step of the ladder, from the cheapest reach to a person.
type Rung int

const (
	// Fetch is a plain HTTP fetch and its readable text: no browser.
	Fetch Rung = 1 + iota
	// Tree is a headless browser context and the page's accessibility
	// tree (the session's own tab).
	Tree
	// Pixels is a screenshot of that tab, for content the tree cannot
	// describe (a canvas, unnamed controls).
	Pixels
	// Desktop is a headed browser on a borrowed desktop of the pool: a
	// real window, native dialogs.
	Desktop
	// Person is a hand-off to a person.
	Person
)

// Top is the last rung.
const Top = Person

func (r Rung) String() string {
	switch r {
	case Fetch:
		return "fetch"
	case Tree:
		return "tree"
	case Pixels:
		return "pixels"
	case Desktop:
		return "desktop"
	case Person:
		return "person"
	}
	return fmt.Sprintf("rung%d", int(r))
}

// What says what the rung is, in words.
func (r Rung) What() string {
	switch r {
	case Fetch:
		return "a plain HTTP fetch and its readable text, no browser"
	case Tree:
		return "a headless browser tab and its accessibility tree"
	case Pixels:
		return "pixels: a screenshot, click --at"
	case Desktop:
		return "a headed browser on a borrowed desktop of the pool"
	case Person:
		return "hand-off to a person"
	}
	return "no rung"
}

// Signal is a rung's own failure signal: a stable name (snake_case, never
// reused for another fact).
type Signal string

// The signals. Each names what a rung saw that it cannot serve.
const (
	// EmptyContent: the page holds no readable text, and no script that
	// could write one.
	EmptyContent Signal = "empty_content"
	// ScriptOnly: the page's text is written by its scripts: what a fetch
	// reads is scripts and (almost) no text.
	ScriptOnly Signal = "script_only"
	// Canvas: content drawn on a canvas, which neither text nor the tree
	// describes.
	Canvas Signal = "canvas"
	// UnnamedControls: controls the tree names not (a button with no
	// name): what they do is seen only in pixels.
	UnnamedControls Signal = "unnamed_controls"
	// BotCheck: the page is a check that a person is there (a CAPTCHA,
	// "verify you are human").
	BotCheck Signal = "bot_check"
	// LoginPage: the page is a login wall (a password field and little
	// else, or HTTP 401).
	LoginPage Signal = "login_page"
	// NoChangeRepeated: the goal's step saw no_visible_change, again, on
	// the same step.
	NoChangeRepeated Signal = "no_visible_change_repeated"
	// NoTree: the target has no accessibility tree to read (the
	// capability law's no_tree).
	NoTree Signal = "no_tree"
	// NotText: the address answers something that is no text a fetch can
	// read (an image, a PDF).
	NotText Signal = "not_text"
	// NoDesktop: no desktop of the pool could be borrowed (no pool, or
	// every desktop lent).
	NoDesktop Signal = "no_desktop"
)

// saw is signal s as rung r saw it, and why.
func saw(r Rung, s Signal, why string, a ...any) wire.ReachSignal {
	return wire.ReachSignal{Rung: int(r), Signal: string(s), Why: fmt.Sprintf(why, a...)}
}

// names lists the signals' names, for a line.
func names(seen []wire.ReachSignal) string {
	var out []string
	for _, s := range seen {
		out = append(out, s.Signal)
	}
	return strings.Join(out, ", ")
}
