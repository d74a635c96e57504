package cdp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/vibespace/vibespace/target"
)

// One look of the effect check reads, of a page, the acted node's facts
// (NodeFacts), the content's digest (ContentDigest) and, before the act,
// arms the page's watcher (Arm) or, after it, asks the watcher what
// changed (WatchTold, at once). Each is a command of its own when asked
// alone; the browser runs a session's commands one after another in the
// page, so three commands sent at once still cost three turns of the
// page's main thread and three replies (measured, a loaded machine: the
// five commands of a look before the act, sent together, 8.6 ms to the
// last reply; one call alone, 1.8 ms). Look asks them in one: a call on
// the node's own object (it runs in the node's document, the main frame's)
// that reads the facts, digests the document and arms or asks the watcher
// in that order, in one task of the page, beside the node's AX node
// (Accessibility.getPartialAXTree, pipelined: two commands). The call runs
// as a user's gesture, as the evaluations it replaces did (Eval).

// lookJS is one look's function: called with this = the acted node (or
// the document, facts false), it reads the node's facts (nodeFactsJS),
// the document's digest (contentDigestJS), arms the watcher (%s:
// watchJS's expression, or "0" when not asked) or asks the armed one what
// changed after mark told (0: not asked), at once, as asked and each
// failing on its own (its message beside the others' answers).
const lookJS = `async function (facts, digest, arm, told) {
	const out = {};
	const why = (e) => String(e && e.message || e);
	if (facts) { try { out.facts = (%s).call(this); } catch (e) { out.factsErr = why(e); } }
	if (digest) { try { out.digest = (%s).call(document); } catch (e) { out.digestErr = why(e); } }
	if (arm) { try { out.mark = %s; } catch (e) { out.armErr = why(e); } }
	if (told) {
		try {
			const w = window[Symbol.for('vibespace.watch')];
			out.told = w ? await w.told(told - 1, 0, false) : {gone: true};
		} catch (e) { out.toldErr = why(e); }
	}
	return out;
}`

// LookFor is what one look reads of a page.
type LookFor struct {
	Node   *NodeRef      // the node whose facts are read (nil: none)
	Digest bool          // the content's digest, ContentDigest's
	Arm    time.Duration // > 0: the page's watcher armed for one act of this life, after the reads (Arm's)
	// Told, when not 0, asks the armed watcher what changed after this
	// mark, at once (WatchTold's, d 0, the watcher left armed), after the
	// reads.
	Told uint64
}

// Look is what one look read, each part as its own call would have
// answered it (its error where it failed).
type Look struct {
	Facts     NodeFacts
	FactsErr  error
	Digest    string
	DigestErr error
	Mark      uint64 // the watcher's mark (Arm's); 0 when not armed
	ArmErr    error
	Told      Told // WatchTold's answer (LookFor.Told)
	ToldErr   error
}

// lookAnswer is lookJS's answer.
type lookAnswer struct {
	Facts *struct {
		NodeFacts
		Gone bool `json:"gone"`
	} `json:"facts"`
	FactsErr  string       `json:"factsErr"`
	Digest    *string      `json:"digest"`
	DigestErr string       `json:"digestErr"`
	Mark      *uint64      `json:"mark"`
	ArmErr    string       `json:"armErr"`
	Told      jsonv2.Value `json:"told"`
	ToldErr   string       `json:"toldErr"`
}

// Look reads what f asks of the page in one call where it can: on the
// node's object when the node is in the main frame (with its AX node
// beside it, pipelined), else (no node, or a node in a frame, read on its
// frame's session at the same time) in the main frame's document. Each
// part answers as its own call would (NodeFacts, ContentDigest with every
// recorded frame's digest after the main frame's, Arm): a node that is
// gone is stale_ref and leaves the digest and the watcher to a call of
// their own.
func (t *Tab) Look(ctx context.Context, f LookFor) Look {
	arm := "0"
	if f.Arm > 0 {
		arm = fmt.Sprintf(watchJS, max(f.Arm.Milliseconds(), 1), watchQuietMS)
	}
	fn := fmt.Sprintf(lookJS, nodeFactsJS, contentDigestJS, arm)
	var out Look
	rest := f.Digest || f.Arm > 0 || f.Told != 0 // what is asked of the document
	if f.Node != nil {
		n, err := t.resolve(ctx, *f.Node)
		switch {
		case err != nil:
			out.FactsErr = err
		case n.frame != nil:
			// The node is in a frame's document, the digest and the
			// watcher the main frame's: both at once.
			var wg sync.WaitGroup
			wg.Go(func() { out.Facts, out.FactsErr = t.NodeFacts(ctx, *f.Node) })
			if rest {
				t.lookDocument(ctx, fn, f, &out)
			}
			wg.Wait()
			return out
		default:
			var ans lookAnswer
			id := n.backend
			axCall, axErr := n.sess.send(ctx, accessibility.CommandGetPartialAXTree, axNodeParams(id))
			err = t.callAs(ctx, n, true, fn, &ans, true, f.Digest, f.Arm > 0, f.Told)
			var a *axNode
			if axErr == nil {
				a, axErr = t.axNodeReply(ctx, f.Node.Ref, n.sess, axCall, id)
			}
			if err == nil {
				out.Facts, out.FactsErr = ans.facts(f.Node.Ref)
				if out.FactsErr == nil && axErr == nil && a != nil { // a tree that did not answer leaves them empty
					out.Facts.Role, out.Facts.Name = roleName(a.Role), a.Name
				}
				t.lookParts(ctx, ans, f, &out)
				return out
			}
			out.FactsErr = err // the call ran nothing: the document is asked on its own
		}
	}
	if rest {
		t.lookDocument(ctx, fn, f, &out)
	}
	return out
}

// lookDocument runs look function fn without a node, in the main
// frame's document, for the digest and the watcher f asks.
func (t *Tab) lookDocument(ctx context.Context, fn string, f LookFor, out *Look) {
	var ans lookAnswer
	if err := t.EvalInto(ctx, fmt.Sprintf("(%s).call(document, false, %t, %t, %d)", fn, f.Digest, f.Arm > 0, f.Told), &ans); err != nil {
		if f.Digest {
			out.DigestErr = err
		}
		if f.Arm > 0 {
			out.ArmErr = err
		}
		if f.Told != 0 {
			out.ToldErr = err
		}
		return
	}
	t.lookParts(ctx, ans, f, out)
}

// lookParts takes the digest (the recorded frames' after it) and the
// watcher's mark of a look's answer.
func (t *Tab) lookParts(ctx context.Context, ans lookAnswer, f LookFor, out *Look) {
	if f.Digest {
		switch {
		case ans.DigestErr != "":
			out.DigestErr = lookThrew(ans.DigestErr)
		case ans.Digest == nil:
			out.DigestErr = fmt.Errorf("cdp: the page's look answered no digest")
		default:
			out.Digest, out.DigestErr = t.withFrames(ctx, *ans.Digest)
		}
	}
	if f.Arm > 0 {
		switch {
		case ans.ArmErr != "":
			out.ArmErr = lookThrew(ans.ArmErr)
		case ans.Mark == nil || *ans.Mark == 0:
			out.ArmErr = fmt.Errorf("cdp: the page's watcher answered no mark")
		default:
			out.Mark = *ans.Mark
		}
	}
	if f.Told != 0 {
		switch {
		case ans.ToldErr != "":
			out.ToldErr = lookThrew(ans.ToldErr)
		case len(ans.Told) == 0:
			out.ToldErr = fmt.Errorf("cdp: the page's watcher answered nothing")
		default:
			out.Told, out.ToldErr = DecodeTold(ans.Told, f.Told)
		}
	}
}

// facts is the node's facts of a look's answer: a node no longer in its
// document is stale_ref.
func (a lookAnswer) facts(ref string) (NodeFacts, error) {
	switch {
	case a.FactsErr != "":
		return NodeFacts{}, lookThrew(a.FactsErr)
	case a.Facts == nil:
		return NodeFacts{}, fmt.Errorf("cdp: the page's look answered no facts of %s", ref)
	case a.Facts.Gone:
		return NodeFacts{}, staleRef(ref)
	}
	return a.Facts.NodeFacts, nil
}

// lookThrew is the error of a part of a look the page's script threw in,
// as scriptError says it.
func lookThrew(msg string) error {
	return target.Refuse(target.CodeScriptError, "the page's script threw: %s", firstLine(msg))
}
