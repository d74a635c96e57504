package cdp

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/runtime"
	jsonv2 "github.com/go-json-experiment/json"
)

// An acting verb's effect on a page is told by a watcher the page runs
// for it (Arm), installed before the act and asked after it (Told): what
// changed in the document, each change naming its element, and whether
// something the act started is still pending — a request (fetch,
// XMLHttpRequest) or a timer or animation frame its event handlers
// scheduled (window.event is one of the act's input events when it was
// scheduled, or it was scheduled by such a timer in turn) that has not
// run yet. A page that has nothing pending and showed no change for
// watchQuietMS is quiet: the act will change nothing more, and the wait
// for its effect may end early. Timers and requests that page scripts
// start through references they took before the watcher was armed are
// not seen.

// watchQuietMS is how long a page with nothing pending must show no
// change before it is quiet; also how long a request's or timer's end
// keeps it pending (its continuation may schedule the next step).
const watchQuietMS = 100

// watchJS arms the watcher (%d: its life in ms, after which it disarms
// itself; a timer counts when it is to run within half of it) and answers
// its mark. Armed again, it starts over.
const watchJS = `(() => {
	const K = Symbol.for('vibespace.watch');
	const old = window[K];
	if (old) old.stop();
	const life = %d, quiet = %d;
	const st = window.setTimeout, ct = window.clearTimeout;
	const acts = new Set(['pointerdown','pointerup','mousedown','mouseup','click','dblclick','auxclick','contextmenu','keydown','keypress','keyup','input','beforeinput','change','submit','focus','blur','focusin','focusout','wheel','select','reset']);
	const w = {recs: [], answered: 0, pending: 0, settled: performance.now(), inCounted: 0, bell: null};
	const ring = () => { w.settled = performance.now(); if (w.bell) { const b = w.bell; w.bell = null; b(); } };
	const counts = () => { const e = window.event; return w.inCounted > 0 || (e && e.isTrusted && acts.has(e.type)); };
	const name = (n) => {
		const e = n && n.nodeType === 1 ? n : n && n.parentElement;
		if (!e) return 'the document';
		let s = (e.tagName || '').toLowerCase();
		if (e.id) s += '#' + e.id;
		const l = e.getAttribute && (e.getAttribute('aria-label') || e.getAttribute('role'));
		if (l) s += ' "' + l.slice(0, 40) + '"';
		return s;
	};
	const cut = (s) => { s = String(s || '').replace(/\s+/g, ' ').trim(); return s.length > 40 ? s.slice(0, 40) + '…' : s; };
	const secret = (n) => { const e = n && n.nodeType === 1 ? n : n && n.parentElement; return !!(e && e.closest && e.closest('input[type=password]')); };
	// An element's text is one record while it changes, told with its
	// text at the answer; once an answer went, its next change is a new
	// record (prev: the index of the element's record before it), which
	// an answer from before that one leaves out (the earlier record tells
	// the element's text now): what an answer tells from a mark is the
	// same whether or not answers were asked in between (w.answered: the
	// records when the last answer went).
	const texts = new Map();
	const textRec = (e, was) => {
		const i = texts.get(e);
		if (i !== undefined && i >= w.answered) return;
		const r = {node: name(e), what: 'text', from: cut(was()), secret: secret(e), el: e};
		if (i !== undefined) r.prev = i;
		texts.set(e, w.recs.push(r) - 1);
	};
	const obs = new MutationObserver((ms) => {
		for (const m of ms) {
			if (m.type === 'characterData') {
				textRec(m.target.parentElement, () => m.oldValue);
			} else if (m.type === 'childList') {
				const onlyText = [...m.addedNodes, ...m.removedNodes].every((n) => n.nodeType === 3);
				if (onlyText) {
					textRec(m.target, () => [...m.removedNodes].map((n) => n.data).join(''));
				} else {
					for (const n of m.addedNodes) if (n.nodeType === 1) w.recs.push({node: name(m.target), what: 'added', to: name(n)});
					for (const n of m.removedNodes) if (n.nodeType === 1) w.recs.push({node: name(m.target), what: 'removed', to: name(n)});
				}
			} else if (m.type === 'attributes') {
				w.recs.push({node: name(m.target), what: m.attributeName, from: cut(m.oldValue), to: cut(m.target.getAttribute(m.attributeName))});
			}
		}
		ring();
	});
	obs.observe(document, {subtree: true, childList: true, characterData: true, characterDataOldValue: true, attributes: true, attributeOldValue: true,
		attributeFilter: ['hidden', 'disabled', 'open', 'aria-expanded', 'aria-pressed', 'aria-checked', 'aria-selected', 'aria-hidden', 'value']});
	const evs = ['hashchange', 'popstate', 'beforeunload', 'pagehide'];
	const onEv = (e) => { w.recs.push({node: 'the page', what: e.type}); ring(); };
	for (const k of evs) window.addEventListener(k, onEv, true);
	const saved = [];
	const wrap = (obj, key, make) => { const orig = obj[key]; if (typeof orig !== 'function') return; obj[key] = make(orig); saved.push([obj, key, orig]); };
	const later = (orig, slot) => function (fn, ...rest) {
		if (typeof fn !== 'function' || !counts()) return orig.call(this, fn, ...rest);
		w.pending++;
		let done = false;
		const end = () => { if (!done) { done = true; w.pending--; ring(); } };
		const id = orig.call(this, function (...a) { w.inCounted++; try { return fn.apply(this, a); } finally { w.inCounted--; end(); } }, ...rest);
		if (slot) slot.set(id, end);
		return id;
	};
	const timers = new Map(), frames = new Map();
	const delay = (orig) => function (fn, ms, ...rest) { return (ms || 0) <= life / 2 ? later(orig, timers).call(this, fn, ms, ...rest) : orig.call(this, fn, ms, ...rest); };
	wrap(window, 'setTimeout', delay);
	wrap(window, 'requestAnimationFrame', (orig) => later(orig, frames));
	wrap(window, 'clearTimeout', (orig) => function (id) { const end = timers.get(id); if (end) end(); return orig.call(this, id); });
	wrap(window, 'cancelAnimationFrame', (orig) => function (id) { const end = frames.get(id); if (end) end(); return orig.call(this, id); });
	wrap(window, 'fetch', (orig) => function (...a) {
		if (!counts()) return orig.apply(this, a);
		w.pending++;
		let done = false;
		const end = () => { if (!done) { done = true; w.pending--; ring(); } };
		const p = orig.apply(this, a);
		p.then(end, end);
		return p;
	});
	if (window.XMLHttpRequest) wrap(XMLHttpRequest.prototype, 'send', (orig) => function (...a) {
		if (counts()) {
			w.pending++;
			let done = false;
			this.addEventListener('loadend', () => { if (!done) { done = true; w.pending--; ring(); } });
		}
		return orig.apply(this, a);
	});
	const kill = st(() => w.stop(), life);
	w.stop = () => {
		obs.disconnect();
		ct(kill);
		for (const k of evs) window.removeEventListener(k, onEv, true);
		for (const [o, k, f] of saved.reverse()) o[k] = f;
		if (window[K] === w) delete window[K];
		if (w.bell) { const b = w.bell; w.bell = null; b(); }
	};
	const since = (from) => {
		const out = [];
		for (let i = from; i < w.recs.length; i++) {
			const r = w.recs[i];
			if (r.prev !== undefined && r.prev >= from) continue;
			out.push(r.what === 'text' && r.el ? Object.assign({}, r, {el: undefined, prev: undefined, to: cut(r.el.textContent)}) : r);
		}
		return out;
	};
	w.told = (from, ms, stop) => new Promise((resolve) => {
		const t0 = performance.now();
		let timer = 0;
		const answer = (why, out) => {
			ct(timer);
			if (w.bell === check) w.bell = null;
			w.answered = w.recs.length;
			const res = {mark: w.recs.length, told: out || since(from), pending: w.pending > 0, quiet: why === 'quiet'};
			if (stop) w.stop();
			resolve(res);
		};
		const check = () => {
			const now = performance.now();
			const out = since(from);
			if (out.length > 0) return answer('told', out);
			if (w.pending === 0 && now - Math.max(t0, w.settled) >= quiet) return answer('quiet');
			if (now - t0 >= ms) return answer('time');
			w.bell = check;
			ct(timer);
			const next = w.pending === 0 ? Math.max(t0, w.settled) + quiet - now : ms - (now - t0);
			timer = st(check, Math.max(1, Math.min(next, ms - (now - t0))));
		};
		check();
	});
	window[K] = w;
	return 1;
})()`

// watchToldJS asks the armed watcher what changed after mark %d, waiting
// up to %d ms for a change or for the page to be quiet; %t: disarm it
// after. A page whose watcher is gone (it navigated) answers so.
const watchToldJS = `(() => {
	const w = window[Symbol.for('vibespace.watch')];
	if (!w) return {gone: true};
	return w.told(%d - 1, %d, %t);
})()`

// Told is what a page's watcher told after a mark.
type Told struct {
	Mark    uint64       `json:"mark"`    // the mark to ask from next
	Changes []ToldChange `json:"told"`    // what changed, oldest first
	Pending bool         `json:"pending"` // something the act started is still pending
	Quiet   bool         `json:"quiet"`   // nothing pending, and no change for watchQuietMS
	Gone    bool         `json:"gone"`    // the watcher is gone: the document was left
}

// ToldChange is one change the watcher saw: of node (its tag, #id, ARIA
// label or role), what ("text", "added", "removed", an attribute's name,
// "hashchange", "popstate", "beforeunload", "pagehide"), from and to (a
// text's or an attribute's, cut), secret when the text is a password
// field's (its words say its length only).
type ToldChange struct {
	Node   string `json:"node"`
	What   string `json:"what"`
	From   string `json:"from"`
	To     string `json:"to"`
	Secret bool   `json:"secret"`
}

// Arm installs the page's watcher for one act, for at most life, and
// answers its mark (never 0).
func (t *Tab) Arm(ctx context.Context, life time.Duration) (uint64, error) {
	var one uint64
	if err := t.EvalInto(ctx, fmt.Sprintf(watchJS, max(life.Milliseconds(), 1), watchQuietMS), &one); err != nil {
		return 0, err
	}
	return one, nil
}

// WatchTold asks the page's watcher what changed after mark, waiting up to
// d for a change, or for the page to be quiet (d 0: at once); stop
// disarms it after. A document that went (the tab navigated) is a change
// of the page.
func (t *Tab) WatchTold(ctx context.Context, mark uint64, d time.Duration, stop bool) (Told, error) {
	cctx, cancel := context.WithTimeout(ctx, d+time.Second) // its bound: the page's own timer, and a little
	defer cancel()
	var res runtime.EvaluateResult
	err := t.sess.Call(cctx, runtime.CommandEvaluate, &runtime.EvaluateParams{
		Expression:    fmt.Sprintf(watchToldJS, mark, d.Milliseconds(), stop),
		ReturnByValue: new(true),
		AwaitPromise:  new(true),
	}, &res)
	if err != nil {
		if e, ok := asError(err); ok && e.Code == codeServerError {
			return Told{Mark: mark, Gone: true}, nil // its context was destroyed: the document went
		}
		return Told{}, t.fail(err)
	}
	if res.ExceptionDetails != nil {
		return Told{}, scriptError(res.ExceptionDetails)
	}
	if res.Result == nil {
		return Told{}, fmt.Errorf("cdp: the page's watcher answered nothing")
	}
	return DecodeTold(res.Result.Value, mark)
}

// DecodeTold decodes what the page's watcher answered (WatchToldJS) when
// asked from mark.
func DecodeTold(answer []byte, mark uint64) (Told, error) {
	var out Told
	if err := jsonv2.Unmarshal(answer, &out); err != nil {
		return Told{}, fmt.Errorf("cdp: the page's watcher answered %s: %w", answer, err)
	}
	if out.Gone {
		out.Mark = mark
	} else {
		out.Mark++ // marks are one past the records they follow: never 0
	}
	return out, nil
}
