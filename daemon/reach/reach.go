// Package reach is the reach ladder (browser.reach, vibespace-browser
// reach <url> [--goal "…"]), a registered stage
// (cmd/vibespace-daemon/stages): it reaches a page on the lowest rung
// that can serve it and climbs exactly one rung on a rung's own failure
// signal, never speculatively:
//
//	1 fetch    a plain HTTP fetch and its readable text (no browser)
//	2 tree     a tab of the session's headless browser context and its accessibility tree
//	3 pixels   a screenshot of that tab, where the tree cannot say what is there
//	4 desktop  a headed browser on a borrowed desktop of the pool (a real window, native dialogs)
//	5 person   a hand-off to a person
//
// The signals are typed, stable names (Signal): empty_content,
// script_only, canvas, unnamed_controls, bot_check, login_page,
// no_visible_change_repeated, no_tree, not_text, no_desktop. The answer
// (wire.ReachAnswer) names the rung reached, its outcome, and every
// signal each rung saw on the way. Rungs 2 to 4 run through the verb
// path itself — the core's Handle, lent as the stage's hands (Host) — as
// the session's own browser.open, snapshot, screenshot, click, borrow,
// open --on deskN: each is leased, budgeted, watched, audited and traced
// as if sent alone, and what a rung opened stays the session's (its
// current tab; from rung 4 the borrowed desktop and its window).
//
// Rung 5 is a hand-off to a person, which this package does not do: a
// HandOff (Config.HandOff) does it; without one the ladder stops there
// with the outcome handoff_next and every signal seen.
//
// The stage also tells acting verbs which rung is next when they meet a
// signal (a step that saw no_visible_change again, no_tree): see Finish.
//
// The package never imports the core (layout_test.go).
package reach

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/stage"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// Name is the stage's name.
const Name = "reach"

// Host is what the stage needs of the core: the verb path, answering one
// request as if a client had sent it, and the daemon's browser, whose
// headed program (a kind.AppRunner's) rung 4 starts on a desktop.
type Host interface {
	Handle(ctx context.Context, req wire.Request) wire.Response
	Browser() kind.Browser
}

// HandOff is the ladder's fifth rung, a hand-off to a person (another
// package's): it hands target id of session to a person for reason and
// answers what came back. Its answer is the ladder's at rung 5; a
// refusal is the ladder's refusal.
type HandOff interface {
	HandOff(ctx context.Context, session string, id target.ID, reason string) (wire.Response, error)
}

// Config configures the ladder.
type Config struct {
	// HandOff is rung 5 (ByVerb: the daemon's hand-off verb); nil: the
	// ladder stops there, handoff_next.
	HandOff HandOff
	// Client is rung 1's HTTP client (nil: one whose every fetch is
	// bounded by FetchTimeout).
	Client *http.Client
	// BorrowWait is how long rung 4 queues for a desktop (0: not at all).
	BorrowWait time.Duration
	// LoadWait bounds how long rung 4 waits for the page to show in its
	// window's tree (0: DefaultLoadWait).
	LoadWait time.Duration
}

// FetchTimeout bounds rung 1's fetch; DefaultLoadWait rung 4's wait for
// the page in its window.
const (
	FetchTimeout    = 15 * time.Second
	DefaultLoadWait = 20 * time.Second
)

// Stage answers browser.reach and tells acting verbs the next rung.
type Stage struct {
	cfg   Config
	host  Host
	hints *hints
}

// Registration is the ladder's stage for cmd/vibespace-daemon/stages.
func Registration(cfg Config) stage.Registration {
	return stage.Registration{Name: Name, New: func(env stage.Env) (stage.Stage, error) {
		h, _ := env.Hands.(Host)
		if cfg.Client == nil {
			cfg.Client = &http.Client{Timeout: FetchTimeout}
		}
		if cfg.LoadWait <= 0 {
			cfg.LoadWait = DefaultLoadWait
		}
		if b, ok := cfg.HandOff.(*ByVerb); ok {
			b.host = h
		}
		return &Stage{cfg: cfg, host: h, hints: newHints()}, nil
	}}
}

func (s *Stage) Name() string { return Name }

// Verbs is the ladder's word, vibespace-browser's.
func (s *Stage) Verbs() []string { return []string{"browser.reach"} }

// Answer climbs the ladder for one address.
func (s *Stage) Answer(ctx context.Context, c *stage.Call) (wire.Response, error) {
	if s.host == nil {
		return wire.Response{}, target.Refuse(target.CodeInternal, "stage %s was lent no verb path", Name)
	}
	a, _ := c.Args.(args.Reach)
	u, err := url.Parse(a.URL)
	if err != nil || u.Scheme == "" {
		return wire.Response{}, target.Refuse(target.CodeBadRequest, "reach needs an address: reach https://example.org/ (got %s)", target.Echo(a.URL))
	}
	l := &ladder{s: s, c: c, url: a.URL, goal: parseGoal(a.Goal),
		ans: &wire.ReachAnswer{URL: a.URL, Start: int(Fetch), Goal: a.Goal}}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		l.start(Tree, "rung 1 fetches http and https only, not "+u.Scheme)
	case l.goal.click != "":
		l.start(Tree, fmt.Sprintf("the goal clicks %q, and a fetch clicks nothing", l.goal.click))
	}
	return l.climb(ctx)
}

// goal is what --goal asks: a control to click ("click <name>"), else
// words to find.
type goal struct {
	click string
	words []string
}

func parseGoal(s string) goal {
	s = strings.TrimSpace(s)
	for _, verb := range []string{"click ", "press "} {
		if len(s) > len(verb) && strings.EqualFold(s[:len(verb)], verb) {
			return goal{click: strings.Trim(strings.TrimSpace(s[len(verb):]), `"'`)}
		}
	}
	return goal{words: strings.Fields(strings.ToLower(s))}
}

// ladder is one reach as it climbs.
type ladder struct {
	s    *Stage
	c    *stage.Call
	url  string
	goal goal
	ans  *wire.ReachAnswer
	resp wire.Response // the answer so far: the rung's target, text, picture

	// What the rungs opened: the tab (rungs 2, 3), its last snapshot,
	// the borrowed desktop and its window (rung 4).
	tab    target.ID
	snap   *target.Snapshot
	desk   string
	window target.ID
}

func (l *ladder) start(r Rung, why string) {
	l.ans.Start, l.ans.StartWhy = int(r), why
}

// climb tries each rung from the start, climbing one on its signals.
func (l *ladder) climb(ctx context.Context) (wire.Response, error) {
	for r := Rung(l.ans.Start); r <= Top; r++ {
		if r == Person {
			return l.person(ctx)
		}
		var (
			sig []wire.ReachSignal
			err error
		)
		switch r {
		case Fetch:
			sig, err = l.fetch(ctx)
		case Tree:
			sig, err = l.tree(ctx)
		case Pixels:
			sig, err = l.pixels(ctx)
		case Desktop:
			sig, err = l.desktop(ctx)
		}
		if err != nil {
			return wire.Response{}, l.refused(err)
		}
		l.ans.Signals = append(l.ans.Signals, sig...)
		if len(sig) == 0 {
			return l.served(r), nil
		}
	}
	return wire.Response{}, target.Refuse(target.CodeInternal, "the ladder ended past its last rung")
}

// ask sends one verb of the session's through the verb path.
func (l *ladder) ask(ctx context.Context, verb, on string, a args.Args) wire.Response {
	req := args.Request(verb, on, a)
	req.Session, req.Profile = l.c.Req.Session, l.c.Req.Profile
	return l.s.host.Handle(ctx, req)
}

// refused is a rung's refusal (a verb it sent that no signal explains),
// with the signals seen before it.
func (l *ladder) refused(err error) error {
	r, ok := target.AsRefusal(err)
	if !ok {
		return err
	}
	if len(l.ans.Signals) > 0 {
		r = r.With("signals", names(l.ans.Signals))
	}
	if l.desk != "" {
		r = r.With("desk", l.desk) // still yours: return gives it back
	}
	return r
}

// fromResponse is resp's refusal as an error.
func fromResponse(resp wire.Response) error {
	r := target.Refuse(resp.Code, "%s", resp.Message)
	for k, v := range resp.Facts {
		r = r.With(k, v)
	}
	return r
}

// maxText bounds the text an answer carries of a page.
const maxText = 8 << 10

// fetch is rung 1.
func (l *ladder) fetch(ctx context.Context) ([]wire.ReachSignal, error) {
	p, err := fetch(ctx, l.s.cfg.Client, l.url)
	if err != nil {
		return nil, target.Refuse(target.CodeNavigationFailed, "rung 1 could not fetch %s: %v", target.Echo(l.url), err).With("url", l.url)
	}
	sig := p.signals()
	l.resp.Text = l.goalText(p.text)
	if p.title != "" {
		l.resp.Facts = map[string]any{"title": p.title}
	}
	l.resp.Facts = withFact(l.resp.Facts, "http_status", p.status)
	return sig, nil
}

func withFact(m map[string]any, k string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[k] = v
	return m
}

// tree is rung 2: the page in a tab of the session's headless context,
// read through its tree; the goal's click through the tree.
func (l *ladder) tree(ctx context.Context) ([]wire.ReachSignal, error) {
	open := l.ask(ctx, "browser.open", "", args.OpenURL{URL: l.url})
	if !open.OK {
		return nil, fromResponse(open)
	}
	if open.Target != nil {
		l.tab = open.Target.ID
	}
	l.resp = wire.Response{Target: open.Target, Profile: open.Profile}
	sig, snap, err := l.read(ctx, Tree, "browser.snapshot", "")
	if err != nil || len(sig) > 0 || l.goal.click == "" {
		return sig, err
	}
	n := findControl(snap, l.goal.click)
	if n == nil {
		l.goalMissed(fmt.Sprintf("the tree has no control named %q", l.goal.click))
		return nil, nil
	}
	return l.clickTwice(ctx, Tree, "browser.click", "", args.Click{Ref: n.Ref}, n)
}

// read reads the tree of on (a window) or the tab ("" on verb
// browser.snapshot) and its signals at rung r; the answer's text is its
// interactive view.
func (l *ladder) read(ctx context.Context, r Rung, verb, on string) ([]wire.ReachSignal, *target.Snapshot, error) {
	req := args.Request(verb, on, args.Snapshot{})
	req.Session, req.Profile, req.JSON = l.c.Req.Session, l.c.Req.Profile, true
	snap := l.s.host.Handle(ctx, req)
	switch {
	case !snap.OK && snap.Code == target.CodeNoTree:
		return []wire.ReachSignal{saw(r, NoTree, "%s", snap.Message)}, nil, nil
	case !snap.OK:
		return nil, nil, fromResponse(snap)
	}
	l.snap = snap.Snapshot
	if snap.Target != nil {
		l.resp.Target = snap.Target
	}
	t := readTree(snap.Snapshot)
	title := ""
	if snap.Snapshot != nil {
		title = snap.Snapshot.Title
		l.resp.Text = excerpt(snap.Snapshot.AnswerText(target.Framing{}), maxText)
	}
	if len(l.goal.words) > 0 {
		l.resp.Text = l.goalText(t.text)
	}
	return t.signals(r, title), snap.Snapshot, nil
}

// clickTwice does the goal's click (verb on on, with a), and once more if
// it saw no visible change: twice no change is the rung's signal. A click
// refused is the rung's refusal, unless it is no_tree (a signal).
func (l *ladder) clickTwice(ctx context.Context, r Rung, verb, on string, a args.Args, n *target.Node) ([]wire.ReachSignal, error) {
	what := fmt.Sprintf("%s %q", n.Role, n.Name)
	for try := 1; ; try++ {
		resp := l.ask(ctx, verb, on, a)
		switch {
		case !resp.OK && resp.Code == target.CodeNoTree:
			return []wire.ReachSignal{saw(r, NoTree, "%s", resp.Message)}, nil
		case !resp.OK:
			return nil, fromResponse(resp)
		}
		if resp.Effect == nil || resp.Effect.Word != target.EffectNoVisibleChange {
			met := true
			l.ans.GoalMet = &met
			l.ans.GoalWhy = "clicked " + what + ": " + resp.Did
			return nil, nil
		}
		if try == 2 {
			return []wire.ReachSignal{saw(r, NoChangeRepeated, "clicking %s (%s) twice showed no visible change", what, byWords(a))}, nil
		}
	}
}

func byWords(a args.Args) string {
	if c, ok := a.(args.Click); ok && c.At != "" {
		return "at " + c.At
	}
	return "through the tree"
}

func (l *ladder) goalMissed(why string) {
	met := false
	l.ans.GoalMet, l.ans.GoalWhy = &met, why
}

// pixels is rung 3: a screenshot of the tab; the goal's click at the
// middle of its control, as the tree placed it. The page is read again:
// a bot check or a login wall is still one in pixels.
func (l *ladder) pixels(ctx context.Context) ([]wire.ReachSignal, error) {
	shot := l.ask(ctx, "browser.screenshot", "", args.Empty{})
	if !shot.OK {
		return nil, fromResponse(shot)
	}
	sig, _, err := l.read(ctx, Pixels, "browser.snapshot", "")
	if err != nil {
		return nil, err
	}
	l.resp.PNG = shot.PNG
	var left []wire.ReachSignal
	for _, s := range sig {
		if s.Signal == string(BotCheck) || s.Signal == string(LoginPage) {
			s.Why += "; a picture of it is that still"
			left = append(left, s)
		}
	}
	if len(left) > 0 || l.goal.click == "" {
		return left, nil
	}
	at, err := l.locate(ctx, l.goal.click)
	if err != nil {
		return nil, err
	}
	if at == "" {
		l.goalMissed(fmt.Sprintf("the page lays out no visible control named %q: find it in the picture, then click --at x,y", l.goal.click))
		return nil, nil
	}
	return l.clickTwice(ctx, Pixels, "browser.click", "", args.Click{At: at}, &target.Node{Role: "control", Name: l.goal.click})
}

// locateJS answers the middle of the first visible control of the page
// whose name (its aria-label, text or value) is the one asked (%s, as
// JSON, lower case), else one whose name holds it, as "x,y" in the tab's
// pixels; null when none.
const locateJS = `(() => {
  const want = %s, seen = [];
  for (const e of document.querySelectorAll('button, a[href], input, select, textarea, summary, label, [role], [onclick], [tabindex]')) {
    const b = e.getBoundingClientRect();
    if (b.width <= 0 || b.height <= 0) continue;
    const name = (e.getAttribute('aria-label') || e.innerText || e.value || '').trim().toLowerCase();
    const at = Math.round((b.x + b.width / 2) * devicePixelRatio) + ',' + Math.round((b.y + b.height / 2) * devicePixelRatio);
    if (name === want) return at;
    if (name.includes(want)) seen.push(at);
  }
  return seen.length ? seen[0] : null;
})()`

// locate is where the page lays out the control named name, in the tab's
// pixels ("" none), as the page itself says (browser.eval).
func (l *ladder) locate(ctx context.Context, name string) (string, error) {
	q, _ := json.Marshal(strings.ToLower(strings.TrimSpace(name)))
	ev := l.ask(ctx, "browser.eval", "", args.Eval{Expr: fmt.Sprintf(locateJS, q)})
	if !ev.OK {
		return "", fromResponse(ev)
	}
	var at string
	_ = json.Unmarshal(ev.Value, &at)
	return at, nil
}

// desktop is rung 4: a desktop borrowed from the pool, a headed browser
// opened there on the page, read through its window's tree (AT-SPI).
func (l *ladder) desktop(ctx context.Context) ([]wire.ReachSignal, error) {
	apps, ok := l.s.host.Browser().(kind.AppRunner)
	if !ok {
		return []wire.ReachSignal{saw(Desktop, NoDesktop, "this daemon's browser runs no headed browser on a desktop")}, nil
	}
	b := l.ask(ctx, "borrow", "", args.Borrow{Wait: waitWord(l.s.cfg.BorrowWait)})
	if !b.OK {
		return []wire.ReachSignal{saw(Desktop, NoDesktop, "borrow was refused %s: %s", b.Code, b.Message)}, nil
	}
	l.desk, _ = b.Facts["desk"].(string)
	l.ans.Desk = l.desk
	// Its user-data-dir is the desktop's own (under its XDG_CONFIG_HOME),
	// which the wipe on return empties.
	argv := apps.AppArgv("", kind.App{URL: l.url})
	open := l.ask(ctx, "open", "", args.Open{App: argv[0], Args: argv[1:], Display: l.desk})
	if !open.OK && open.Code == target.CodeElsewhere {
		// A pool member on another host: its windows are that host's
		// daemon's, which this ladder does not drive.
		return []wire.ReachSignal{saw(Desktop, NoDesktop, "the desktop lent, %s, is on %v: the ladder drives this host's desktops", l.desk, open.Facts["host"])}, nil
	}
	if !open.OK {
		return nil, fromResponse(open)
	}
	l.window = open.Target.ID
	l.resp = wire.Response{Target: open.Target}
	sig, snap, err := l.waitPage(ctx)
	if err != nil || len(sig) > 0 || l.goal.click == "" {
		return sig, err
	}
	n := findControl(snap, l.goal.click)
	if n == nil {
		l.goalMissed(fmt.Sprintf("the window's tree has no control named %q", l.goal.click))
		return nil, nil
	}
	return l.clickTwice(ctx, Desktop, "click", string(l.window), args.Click{Ref: n.Ref}, n)
}

// waitPage reads the window's tree until the page shows in it (text, or
// the goal's control) or LoadWait passed, then its signals.
func (l *ladder) waitPage(ctx context.Context) ([]wire.ReachSignal, *target.Snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, l.s.cfg.LoadWait)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		sig, snap, err := l.read(ctx, Desktop, "snapshot", string(l.window))
		loaded := snap != nil && readTree(snap).words > 0 && (l.goal.click == "" || findControl(snap, l.goal.click) != nil)
		if err != nil || loaded || len(sig) > 0 && sig[0].Signal == string(NoTree) {
			return sig, snap, err
		}
		select {
		case <-ctx.Done():
			return sig, snap, nil // the signals of the page as it is now
		case <-tick.C:
		}
	}
}

func waitWord(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

// person is rung 5: the hand-off, or, without one, its outcome named.
func (l *ladder) person(ctx context.Context) (wire.Response, error) {
	on := l.window
	if on == "" {
		on = l.tab
	}
	reason := fmt.Sprintf("reach %s: %s", l.url, names(l.ans.Signals))
	if h := l.s.cfg.HandOff; h != nil && on != "" {
		resp, err := h.HandOff(ctx, l.c.Req.Session, on, reason)
		if err != nil {
			return wire.Response{}, l.refused(err)
		}
		l.ans.Rung, l.ans.RungName, l.ans.Outcome = int(Person), Person.String(), OutcomeHandedOff
		resp.Reach = l.ans
		resp.Did = l.words() + "\n" + resp.Did
		return resp, nil
	}
	l.ans.Rung, l.ans.RungName, l.ans.Outcome = int(Person), Person.String(), OutcomeHandoffNext
	resp := l.resp
	resp.Reach = l.ans
	resp.Did = l.words()
	if on != "" {
		resp.Did += fmt.Sprintf("\na person is next: hand %s over (reason: %s)", on, reason)
	}
	return resp, nil
}

// The outcomes of a reach.
const (
	OutcomeServed      = "served"
	OutcomeHandoffNext = "handoff_next"
	OutcomeHandedOff   = "handed_off"
)

// served is the answer of rung r, which serves the page.
func (l *ladder) served(r Rung) wire.Response {
	l.ans.Rung, l.ans.RungName, l.ans.Outcome = int(r), r.String(), OutcomeServed
	if len(l.goal.words) > 0 && l.ans.GoalMet == nil {
		met := l.resp.Text != ""
		l.ans.GoalMet = &met
		if met {
			l.ans.GoalWhy = "the lines below hold its words"
		} else {
			l.ans.GoalWhy = "no line of the page holds all its words"
		}
	}
	resp := l.resp
	resp.Reach = l.ans
	resp.Did = l.words()
	return resp
}

// words is the answer's lines: the rung reached, each signal on the way,
// the goal, what is next.
func (l *ladder) words() string {
	a := l.ans
	r := Rung(a.Rung)
	var b strings.Builder
	switch a.Outcome {
	case OutcomeHandoffNext:
		fmt.Fprintf(&b, "rung 5: hand-off to a person is next (%s)", a.URL)
	default:
		fmt.Fprintf(&b, "reached rung %d of %d (%s: %s): %s", r, Top, r, r.What(), strings.ReplaceAll(a.Outcome, "_", " "))
	}
	if a.StartWhy != "" {
		fmt.Fprintf(&b, "\n  started at rung %d: %s", a.Start, a.StartWhy)
	}
	for _, s := range a.Signals {
		fmt.Fprintf(&b, "\n  rung %d %s: %s — %s", s.Rung, Rung(s.Rung), s.Signal, s.Why)
	}
	if len(a.Signals) == 0 {
		b.WriteString("\n  no signal on the way")
	}
	if a.GoalMet != nil {
		word := "met"
		if !*a.GoalMet {
			word = "not met"
		}
		fmt.Fprintf(&b, "\n  goal %q %s: %s", a.Goal, word, a.GoalWhy)
	}
	if a.Desk != "" {
		fmt.Fprintf(&b, "\n  you hold %s of the pool: return gives it back, wiped", a.Desk)
	}
	if a.Outcome == OutcomeServed && r < Top {
		fmt.Fprintf(&b, "\n  next rung, on a signal: %d (%s)", r+1, (r + 1).What())
	}
	return b.String()
}

// goalText is text, or with a goal of words, the lines of text that hold
// every word ("" none); cut to maxText.
func (l *ladder) goalText(text string) string {
	if len(l.goal.words) == 0 {
		return excerpt(text, maxText)
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		low := strings.ToLower(line)
		all := true
		for _, w := range l.goal.words {
			all = all && strings.Contains(low, w)
		}
		if all {
			out = append(out, line)
		}
	}
	return excerpt(strings.Join(out, "\n"), maxText)
}
