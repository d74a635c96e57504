package app

// Commands of the page: open, snapshot, find, screenshot, get, eval, wait.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

func openCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "open", Description: `Loads <url> in your current tab (a new one when you have none) and waits for the
load. The answer names the tab (tab:N) and the profile it opened in.

   vibespace-browser open http://127.0.0.1:8080/form`,
		Usage: "load a URL in your current tab (a new tab when you have none)", ArgsUsage: "<url>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("open needs one URL: open https://example.org/")
			}
			return ask(c, o, args.Request("open", "", args.OpenURL{URL: c.Args().First()}), printURL)
		},
	}
}

func snapshotCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "snapshot", Description: `Prints the page's accessibility tree, one node a line: role, "name", @ref and
states, in the same shape as vibespace-window's. -i keeps what you can act on.
--json gives the whole tree as JSON.

Less of it: @ref prints that node's subtree only (the same refs); --depth N keeps N
levels below the page (or the @ref) and says how many nodes it cut ("+12 below" on
the node they are under: snapshot @ref shows them); --diff prints only what changed
since your last snapshot of this tab that showed as much (a scoped or -i one does
not move the whole one's), one line a node (+ added, - removed, ~ changed:
states, name, text), or "unchanged"; -i --diff also shows the words that appeared
outside the interactive view (a message, an alert, a status line).

More of it: a snapshot keeps at most 20,000 nodes; one cut there says so in its
header and names the last node it holds. --after @ref reads what follows that node
(its descendants, then the rest of the page), as one more page that may name the
next; -i, --depth and --json take it as they take a snapshot.

   vibespace-browser snapshot -i
   vibespace-browser snapshot @e12 --depth 2
   vibespace-browser snapshot --diff
   vibespace-browser snapshot --after @e13333`,
		Usage: "the page's accessibility tree, with @refs for click, fill and type", ArgsUsage: "[@ref]",
		Flags: []cli.Flag{jsonFlag, &cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}, Usage: "only nodes you can act on"},
			&cli.IntFlag{Name: "depth", Usage: "keep N levels below the page (or the @ref); says how many nodes it cut"},
			&cli.BoolFlag{Name: "diff", Usage: "only what changed since your last snapshot of this tab (the whole tree the first time)"},
			&cli.StringFlag{Name: "after", Usage: "what follows the node @ref in the page: the next page of a snapshot its budget cut (its header names the @ref)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usage("snapshot takes at most one @ref (it reads your current tab; tab <id> switches)")
			}
			req := args.Request("snapshot", "", args.Snapshot{Observe: args.Observe{Ref: c.Args().First(), Interactive: c.Bool("interactive"),
				Depth: c.Int("depth"), Diff: c.Bool("diff")}, After: c.String("after")})
			req.JSON = daemoncall.WantJSON(c)
			return ask(c, o, req, printText)
		},
	}
}

func findCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "find", Usage: "the @refs whose name or text contains a text, each with where it is",
		Description: `Prints the nodes whose name or text value contains <text> (case-insensitive), one
a line with its role, name, @ref and its nearest named ancestors, and the text that matched
(its line around the match, at most 120 characters: a long name is shown where it matched, and
text inside a node follows "says"); "no match" says how many nodes were searched. At most 25 are printed, and how many more there are.

   vibespace-browser find "Edit"`,
		ArgsUsage: "<text>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage(`find needs one text (quote it): find "Save as"`)
			}
			req := args.Request("find", "", args.Find{Text: c.Args().First()})
			req.JSON = daemoncall.WantJSON(c)
			return ask(c, o, req, printText)
		},
	}
}

func screenshotCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "screenshot", Usage: "the tab's viewport as PNG; --at x,y of click and scroll take pixels of it",
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the PNG file to write (default: tab-<id>.png here)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usage("screenshot takes no arguments; --out names the file")
			}
			return ask(c, o, wire.Request{Verb: "screenshot"}, func(r wire.Response, w io.Writer) error {
				return writePNG(c.String("out"), r, w)
			})
		},
	}
}

// writePNG writes r's picture to out (default: <target>.png here) and
// says where.
func writePNG(out string, r wire.Response, w io.Writer) error {
	if out == "" {
		id := "tab"
		if r.Target != nil {
			id = strings.ReplaceAll(string(r.Target.ID), ":", "-")
		}
		out = id + ".png"
	}
	if err := os.WriteFile(out, r.PNG, 0o600); err != nil {
		return usage("write %s: %v", out, err)
	}
	abs, _ := filepath.Abs(out)
	fmt.Fprintf(w, "wrote %s (%d bytes)\n", abs, len(r.PNG))
	return nil
}

func reachCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "reach", Usage: "reach a page on the lowest rung that serves it: fetch, tree, pixels, a borrowed desktop, a person",
		ArgsUsage: "<url>",
		Description: `Reaches <url> on the lowest rung of the ladder that can serve it, and climbs
exactly one rung on a rung's own failure signal, never before:

   1 fetch    a plain HTTP fetch and its readable text (no browser)
   2 tree     your current tab (your own context) and its accessibility tree
   3 pixels   a screenshot of that tab (written to --out), for what the tree
              cannot describe: a canvas, controls with no name
   4 desktop  a headed Chromium on a desktop borrowed from the pool
              (vibespace-daemon --pool-desks N): a real window, native dialogs
   5 person   a hand-off to a person: this build stops there, answering
              "rung 5: hand-off to a person is next" and every signal seen

The signals, by their stable names: empty_content, script_only, canvas,
unnamed_controls, bot_check, login_page, no_visible_change_repeated, no_tree,
not_text, no_desktop. The answer names the rung reached, each signal with the
rung that saw it, and the next rung. --goal "click <name>" starts at rung 2:
each rung clicks the control named so (by the tree, at its pixels, in the
window), and a click that shows no visible change twice is that rung's signal;
any other --goal is words whose lines the answer quotes. What a rung opened
stays yours: the tab, and from rung 4 the desktop (return gives it back,
wiped) and its window (vibespace-window's verbs). Each rung's verbs have the
daemon's --verb-timeout; the reach as a whole waits up to 5 minutes more for a
person at rung 5.

   vibespace-browser reach http://127.0.0.1:8080/
   vibespace-browser reach http://127.0.0.1:8080/upload --goal "click Upload"`,
		Flags: []cli.Flag{jsonFlag, &cli.StringFlag{Name: "goal", Usage: `words to find, or "click <name>": the control the flow goes through`},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "where rung 3's screenshot goes (default: tab-<id>.png here)"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage("reach needs one URL: reach https://example.org/")
			}
			req := browserRequest(c, o, args.Request("reach", "", args.Reach{URL: c.Args().First(), Goal: c.String("goal")}))
			return daemoncall.Ask(c, o, req, reachTimeout, func(r wire.Response, w io.Writer) error {
				if r.Text != "" {
					fmt.Fprintln(w, strings.TrimRight(r.Text, "\n"))
				}
				if len(r.PNG) > 0 {
					return writePNG(c.String("out"), r, w)
				}
				return nil
			})
		},
	}
}

func getCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "get", Usage: "read the page back: its text (or a node's: get text @ref), URL or title",
		ArgsUsage: "text [@ref] | url | title", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			what := c.Args().First()
			req := args.Request("get", "", args.Get{What: what, Ref: c.Args().Get(1)})
			switch {
			case what == "text" && c.NArg() <= 2, (what == "url" || what == "title") && c.NArg() == 1:
			default:
				return usage("get needs one of: get text [@ref], get url, get title")
			}
			return ask(c, o, req, daemoncall.GetBody(what))
		},
	}
}

func evalCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "eval", Usage: "evaluate a JavaScript expression in the page; prints its result as JSON",
		ArgsUsage: "<expression>", Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usage(`eval needs one expression (quote it): eval "document.title"`)
			}
			return ask(c, o, args.Request("eval", "", args.Eval{Expr: c.Args().First()}), func(r wire.Response, w io.Writer) error {
				fmt.Fprintln(w, string(r.Value))
				return nil
			})
		},
	}
}

func waitCommand(o Options) *cli.Command {
	return &cli.Command{
		Name: "wait", Usage: "wait until a selector matches, a text shows, or the URL contains a string",
		Flags: []cli.Flag{jsonFlag,
			&cli.StringFlag{Name: "selector", Usage: "a CSS selector that must match a node"},
			&cli.StringFlag{Name: "text", Usage: "text that must appear in the page"},
			&cli.StringFlag{Name: "url", Usage: "a string the tab's URL must contain"}},
		Action: func(c *cli.Context) error {
			a := args.Wait{Selector: c.String("selector"), Text: c.String("text"), URL: c.String("url")}
			req := args.Request("wait", "", a)
			n := 0
			for _, s := range []string{a.Selector, a.Text, a.URL} {
				if s != "" {
					n++
				}
			}
			if n != 1 || c.NArg() > 0 {
				return usage("wait needs exactly one of --selector s, --text t, --url u")
			}
			return ask(c, o, req, nil)
		},
	}
}
