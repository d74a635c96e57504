// Package modes is how the daemon resolves a window's mode (target.Mode:
// auto | tree | pixels), out of the daemon's core: a record's mode, auto
// judged for a window now (tree when its application's tree has a usable
// node, else pixels, and why), how a request's verb stands to the modes,
// and the mode verb's words. The core keeps each window's mode in its
// record, checks it before every vibespace-window verb runs and answers
// the mode verb; the package holds no state and never imports the core
// (layout_test.go).
package modes

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/kind"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/target"
)

// treeJudge is a target that can say whether its application's tree has a
// usable node: a native window, whose frame must be on the accessibility
// bus with at least one child. why says what was found (for tree) or why
// not (for pixels), in words. A target that is not one is judged by its
// probe.
type treeJudge interface {
	UsableTree(ctx context.Context) (ok bool, why string)
}

// ResolveBudget bounds resolving auto: finding the frame on the
// accessibility bus and reading its children.
const ResolveBudget = 3 * time.Second

// Of is t's mode; a window recorded before modes existed is auto.
func Of(t target.Target) target.Mode {
	if t.Mode == "" {
		return target.ModeAuto
	}
	return t.Mode
}

// Judge resolves auto for t now: tree when its tree has a usable node, else
// pixels, and why.
func Judge(ctx context.Context, t kind.Target) (target.Mode, string) {
	ctx, cancel := context.WithTimeout(ctx, ResolveBudget)
	defer cancel()
	if j, ok := t.(treeJudge); ok {
		usable, why := j.UsableTree(ctx)
		if usable {
			return target.ModeTree, why
		}
		return target.ModePixels, why
	}
	p := t.Probe(ctx)
	if p.Tree {
		return target.ModeTree, "its probe finds " + cmp.Or(p.TreeVia, "an accessibility tree")
	}
	return target.ModePixels, cmp.Or(p.TreeWhy, "its probe finds none")
}

// Verb is how a verb of facts f, with arguments a, stands to the modes: the verb the capability
// law knows it by (the verb table's) and whether it was given a point
// (--at). target.CheckMode lets every mode run a verb that reads no tree
// and acts on no pixel (key, type without a ref, screenshot, select);
// ok is false for a verb the law does not decide (close, the lease verbs,
// mode itself).
func Verb(f verb.Facts, a args.Args) (v target.Verb, at, ok bool) {
	at = args.Point(a) != nil
	v, ok = f.LawVerb(args.Ref(a) != "", at)
	return v, at, ok
}

// Did is the mode verb's answer: the mode m set, what auto resolved to
// now and why (for auto), what the mode refuses, and the mode it was
// (was, in target.ModeWords).
func Did(m, now target.Mode, why, was string) string {
	did := "mode: " + string(m)
	if m == target.ModeAuto {
		did = fmt.Sprintf("mode: %s", target.ModeWords(m, now, why))
		if now == target.ModeTree {
			did += " (" + why + ")"
		}
	}
	switch m {
	case target.ModePixels:
		did += "; snapshot, click @ref and type @ref are refused mode_pixels"
	case target.ModeTree:
		did += "; click --at and scroll --at are refused mode_tree"
	}
	return did + " (was " + was + ")"
}
