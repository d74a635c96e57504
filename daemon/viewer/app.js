// The live view's page. Everything it knows comes from this daemon's own
// API (/api/...), sent with the viewer token read from the URL fragment.
// It never receives what an agent typed: the API carries no text of theirs.
'use strict';
(function () {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token') || '';
  const panes = new Map(); // target id -> Pane
  const strips = new Map(); // session -> its strip element
  const tabs = new Map(); // target id -> Tab (its element and thumbnail)
  let targets = new Map(); // target id -> target as /api/targets describes it
  let sessions = []; // each session's strip head, as /api/targets describes it
  let polled = false;
  const solo = params.get('solo') === '1'; // a popped-out window: one pane, no strips

  // window.vibespace lets a person (or a test) look inside from the console.
  const vs = window.vibespace = {
    panes: panes,
    targets: () => Array.from(targets.values()),
    polled: () => polled,
    open: (id) => openPane(id),
    tabs: tabs,
    popoutURL: (id) => popoutURL(id),
    // strips is what the strips show, for a test to read: each session with
    // its count and idle browsers, and its tabs in order.
    strips: () => Array.from(strips.entries()).map(([name, el]) => ({
      session: name,
      count: el.querySelector('.count').hidden ? '' : el.querySelector('.count').textContent,
      full: el.querySelector('.count').classList.contains('full'),
      idle: Array.from(el.querySelectorAll('.idle li')).map((li) => li.dataset.profile),
      error: el.querySelector('.s-error').textContent,
      tabs: Array.from(el.querySelectorAll('.tab')).map((t) => {
        const tb = tabs.get(t.dataset.id);
        const v = tb.video;
        return {
          id: t.dataset.id, title: t.querySelector('.t-title').textContent,
          context: t.querySelector('.t-ctx').textContent, driver: t.querySelector('.t-drive').textContent,
          watching: t.classList.contains('watching'), frames: tb.frames,
          decoded: v.getVideoPlaybackQuality ? v.getVideoPlaybackQuality().totalVideoFrames : 0,
          w: v.videoWidth, h: v.videoHeight,
        };
      }),
    })),
    watching: () => Array.from(panes.keys()),
    // notices are the hand-offs the page raised a notification for, as
    // its banner shows them.
    notices: () => Array.from(document.querySelectorAll('#notices .notice')).map((n) => ({
      id: n.dataset.id, text: n.querySelector('.n-text').textContent,
    })),
    decline: (id) => decline(id),
  };

  function api(path, opts) {
    opts = opts || {};
    opts.headers = Object.assign({ 'Authorization': 'Bearer ' + token }, opts.headers || {});
    opts.cache = 'no-store';
    return fetch(path, opts);
  }

  const connEl = document.getElementById('conn');
  function setConn(s) { connEl.textContent = s; }

  // ---- the target list -------------------------------------------------

  // load reads /api/targets (naming this page's viewers, so it learns
  // which targets it drives) and shows it; it answers the data, or throws
  // why the daemon did not give it.
  async function load() {
    const ids = [];
    panes.forEach((p) => { if (p.viewerId) ids.push(p.viewerId); });
    const r = await api('/api/targets', { headers: ids.length ? { 'X-Vibespace-Viewers': ids.join(',') } : {} });
    if (!r.ok) {
      const e = new Error('the daemon refused: ' + r.status + ' ' + (await r.text()).trim());
      e.refused = true;
      throw e;
    }
    const data = await r.json();
    targets = new Map((data.targets || []).map((t) => [t.id, t]));
    sessions = data.sessions || [];
    polled = true;
    renderStrips();
    panes.forEach((p) => p.update(targets.get(p.id)));
    raiseNotices();
    return data;
  }

  // ---- hand-offs: an agent asks a person ---------------------------------

  // needsWords says a target's ask: its agent's reason, and who took it
  // over since.
  function needsWords(t) {
    const n = t.needs;
    return n.reason + ' (' + n.session + (n.user ? '; ' + n.user + ' took it over' : '') + ')';
  }

  // raiseNotices raises a notification, once per ask, for every target
  // whose agent asks a person (the banner, and the browser's own
  // notification when the person allowed it), and drops those that ended.
  const raised = new Map(); // target id -> the ask's since
  function raiseNotices() {
    const box = document.getElementById('notices');
    targets.forEach((t) => {
      if (!t.needs || raised.get(t.id) === t.needs.since) return;
      raised.set(t.id, t.needs.since);
      box.querySelectorAll('.notice').forEach((n) => { if (n.dataset.id === t.id) n.remove(); });
      const n = document.createElement('div');
      n.className = 'notice';
      n.dataset.id = t.id;
      n.setAttribute('role', 'alert');
      const text = document.createElement('span');
      text.className = 'n-text';
      text.textContent = paneTitle(t) + ' needs you: ' + t.needs.reason;
      const open = document.createElement('button');
      open.type = 'button';
      open.textContent = 'Open';
      open.addEventListener('click', () => openPane(t.id));
      n.append(text, ' ', open);
      box.append(n);
      if (window.Notification && Notification.permission === 'granted') {
        try { new Notification('vibespace: ' + paneTitle(t) + ' needs you', { body: t.needs.reason, tag: t.id }); } catch (e) { /* the banner says it */ }
      }
      if (document.title.indexOf('needs you') < 0) document.title = '(needs you) ' + document.title;
    });
    raised.forEach((since, id) => {
      const t = targets.get(id);
      if (t && t.needs && t.needs.since === since) return;
      raised.delete(id);
      box.querySelectorAll('.notice').forEach((n) => { if (n.dataset.id === id) n.remove(); });
    });
    if (raised.size === 0) document.title = document.title.replace(/^\(needs you\) /, '');
  }
  // The browser's notifications need the person's leave, asked on their
  // first click in the page.
  document.addEventListener('click', () => {
    if (window.Notification && Notification.permission === 'default') Notification.requestPermission().catch(() => {});
  }, { once: true });

  // decline tells the agent the person will not do what it asks.
  async function decline(id) {
    const p = panes.get(id);
    const h = p && p.viewerId ? { 'X-Vibespace-Viewer': p.viewerId } : {};
    let a;
    try {
      const r = await api('/api/handoff/decline/' + encodeURIComponent(id), { method: 'POST', headers: h });
      a = await r.json();
    } catch (e) {
      a = { ok: false, message: e.message };
    }
    if (p) {
      p.lastAnswer = a;
      if (!a.ok) p.q('.error').textContent = a.message + (a.code ? ' [' + a.code + ']' : '');
    }
    await refreshNow();
    return a;
  }

  async function poll() {
    try {
      const data = await load();
      setConn('connected · ' + data.viewers + ' viewer(s) in all');
    } catch (e) {
      setConn(e.refused ? e.message : 'the daemon does not answer: ' + e.message);
    }
    panes.forEach((p) => p.pollTrace());
    setTimeout(poll, 1000);
  }

  // stepLine is one step of a target's trace as its panel lists it: the
  // time (UTC), the session, the verb, the node, the road, the effect and
  // the duration. A step carries no text an agent typed, only its length.
  function stepLine(s) {
    const parts = [new Date(s.time).toISOString().slice(11, 23), (s.verb || '').replace(/^browser\./, '')];
    if (s.ref) parts.push(s.ref);
    if (s.role) parts.push(s.role);
    if (s.name) parts.push(JSON.stringify(s.name));
    if (s.at) parts.push('at ' + s.at.x + ',' + s.at.y);
    if (s.key) parts.push(s.key);
    if (s.dir) parts.push(s.dir + ' ' + s.steps);
    if (s.chars) parts.push('(' + s.chars + ' chars)');
    if (s.by) parts.push('by:' + s.by);
    parts.push('\u2192 ' + (!s.ok ? 'refused ' + s.code : (s.effect || '-')));
    parts.push(s.ms + 'ms');
    return parts.join(' ');
  }

  // ---- the strips: one per session, a tab per target it drives --------

  const stripsEl = document.getElementById('strips');
  const stripTpl = document.getElementById('strip-tpl');
  const tabTpl = document.getElementById('tab-tpl');

  // contextWords says what a target lives in, as its tab shows it.
  function contextWords(t) {
    switch (t.context) {
      case 'own': return 'own context';
      case 'profile': return 'profile ' + t.name;
      case 'helper': return 'helper: ' + t.name;
      case 'app': return 'desktop app of ' + t.name;
      default: return t.kind === 'tab' ? 'tab' : 'window' + (t.name ? ' · ' + t.name : '');
    }
  }

  // driverWords says who drives a target now.
  function driverWords(t) {
    switch (t.driven_by) {
      case 'you': return 'you drive';
      case 'user': return (t.user || 'someone') + ' drives';
      case 'helper': return 'the helper drives (' + t.name + ')';
      default: return 'the agent drives' + (t.holder ? ' (' + t.holder + ')' : '');
    }
  }

  function byOpened(a, b) {
    const ta = a.opened || '', tb = b.opened || '';
    if (ta !== tb) return ta < tb ? -1 : 1;
    return a.id < b.id ? -1 : (a.id > b.id ? 1 : 0);
  }

  // renderStrips shows every session's strip, updated in place: a new
  // target adds a tab (and nothing else: the panes being watched stay), a
  // target gone takes its tab and thumbnail away.
  function renderStrips() {
    document.getElementById('list-empty').hidden = targets.size > 0 || sessions.length > 0;
    const seen = new Set();
    const order = [];
    sessions.forEach((s) => { order.push(s.name); });
    targets.forEach((t) => { if (t.session && !order.includes(t.session)) order.push(t.session); });
    order.sort();
    order.forEach((name) => {
      seen.add(name);
      let el = strips.get(name);
      if (!el) {
        el = stripTpl.content.firstElementChild.cloneNode(true);
        el.dataset.session = name;
        el.querySelector('.s-name').textContent = 'session ' + name;
        strips.set(name, el);
      }
      place(stripsEl, el, order.indexOf(name)); // in name order
      renderHead(el, sessions.find((s) => s.name === name));
    });
    strips.forEach((el, name) => { if (!seen.has(name)) { el.remove(); strips.delete(name); } });

    const list = Array.from(targets.values()).sort(byOpened);
    const at = new Map(); // strip -> how many tabs placed in it so far
    list.forEach((t) => {
      let tb = tabs.get(t.id);
      if (!tb) { tb = new Tab(t.id); tabs.set(t.id, tb); }
      tb.update(t);
      const home = strips.get(t.session || '');
      if (!home) return;
      const box = home.querySelector('.tabs');
      const i = at.get(box) || 0;
      at.set(box, i + 1);
      if (place(box, tb.el, i)) tb.video.play().catch(() => {}); // a moved video pauses
    });
    tabs.forEach((tb, id) => { if (!targets.has(id)) { tb.close(); tabs.delete(id); } });
  }

  // place puts el at index i of parent's children, moving it only when it
  // is elsewhere (a moved video pauses); it reports whether it moved it.
  function place(parent, el, i) {
    if (parent.children[i] === el) return false;
    parent.insertBefore(el, parent.children[i] || null);
    return true;
  }

  // renderHead is a strip's count (red at the ceiling) and its idle
  // browsers, each with its Stop.
  function renderHead(el, s) {
    const count = el.querySelector('.count');
    const wrap = el.querySelector('.idle-wrap');
    const ul = el.querySelector('.idle');
    if (!s || !s.max) { count.hidden = true; wrap.hidden = true; return; }
    count.hidden = false;
    count.textContent = s.running + '/' + s.max + ' browsers (' + s.yours + ' yours)';
    count.classList.toggle('full', !!s.at_ceiling);
    const idle = s.idle || [];
    wrap.hidden = idle.length === 0;
    const key = idle.map((b) => b.profile).join(',');
    if (ul.dataset.key === key) return;
    ul.dataset.key = key;
    ul.textContent = '';
    idle.forEach((b) => {
      const li = document.createElement('li');
      li.dataset.profile = b.profile;
      const name = document.createElement('span');
      name.textContent = b.label || b.profile;
      const stop = document.createElement('button');
      stop.type = 'button';
      stop.className = 'stop';
      stop.textContent = 'Stop';
      stop.addEventListener('click', () => stopBrowser(el, s.name, b.profile));
      li.append(name, stop);
      ul.append(li);
    });
  }

  async function stopBrowser(el, session, profile) {
    const err = el.querySelector('.s-error');
    err.textContent = '';
    try {
      const r = await api('/api/stop', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ session: session, profile: profile }),
      });
      const a = await r.json();
      vs.lastStop = a;
      if (!a.ok) err.textContent = a.message + ' [' + a.code + ']';
    } catch (e) {
      err.textContent = e.message;
    }
    await refreshNow();
  }

  // popoutURL is the address that watches one target alone, in a window
  // of its own, so two can be watched side by side.
  function popoutURL(id) {
    const p = new URLSearchParams({ token: token, target: id, solo: '1' });
    return location.pathname + '#' + p.toString();
  }

  // A Tab is one target in its session's strip: its name, what it lives in,
  // who drives it, and its thumbnail, live at the thumb tier.
  class Tab {
    constructor(id) {
      this.id = id;
      this.frames = 0;
      this.pc = null;
      this.resource = '';
      const el = this.el = tabTpl.content.firstElementChild.cloneNode(true);
      el.dataset.id = id;
      this.video = el.querySelector('video');
      el.addEventListener('click', (ev) => {
        if (ev.target.closest('.popout')) return;
        openPane(id);
      });
      el.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') openPane(id); });
      el.querySelector('.popout').addEventListener('click', () => {
        vs.lastPopout = popoutURL(id);
        window.open(vs.lastPopout, '_blank', 'popup,width=960,height=640');
      });
      if (this.video.requestVideoFrameCallback) {
        const tick = () => { this.frames++; this.video.requestVideoFrameCallback(tick); };
        this.video.requestVideoFrameCallback(tick);
      }
      if (!solo) this.connect();
    }

    update(t) {
      this.target = t;
      this.el.querySelector('.t-title').textContent = paneTitle(t);
      this.el.querySelector('.t-ctx').textContent = contextWords(t);
      const d = this.el.querySelector('.t-drive');
      d.textContent = driverWords(t);
      d.className = 't-drive ' + (t.driven_by || 'agent');
      const nd = this.el.querySelector('.t-needs');
      nd.hidden = !t.needs;
      nd.textContent = t.needs ? 'needs you: ' + needsWords(t) : '';
      this.el.classList.toggle('needs', !!t.needs);
      this.el.classList.toggle('watching', panes.has(t.id));
    }

    async connect() {
      const pc = this.pc = videoPeer(this.video);
      try {
        const r = await offerWHEP(pc, '/api/whep/' + encodeURIComponent(this.id) + '?tier=thumb');
        if (pc !== this.pc) return;
        if (r.status !== 201) { this.error = r.body.trim() || ('HTTP ' + r.status); return; }
        this.resource = r.resource;
        await pc.setRemoteDescription({ type: 'answer', sdp: r.body });
      } catch (e) {
        if (pc === this.pc) this.error = e.message || String(e);
      }
    }

    close() {
      if (this.pc) { const pc = this.pc; this.pc = null; pc.close(); }
      if (this.resource) { api(this.resource, { method: 'DELETE' }).catch(() => {}); this.resource = ''; }
      this.el.remove();
    }
  }

  // paneTitle names a target as its row and pane show it: a window of the
  // user's own desktop says so.
  function paneTitle(t) {
    return (t.title || t.id) + (t.desktop ? ' \u2014 your desktop' : '');
  }

  function openPane(id) {
    let p = panes.get(id);
    if (!p) {
      p = new Pane(id);
      panes.set(id, p);
      renderStrips();
      p.pollTrace();
    }
    p.el.scrollIntoView({ block: 'nearest' });
    return p;
  }

  // ---- a pane: one target's video, badge, buttons and input ------------

  const tpl = document.getElementById('pane-tpl');
  const jsButton = { 0: 1, 1: 2, 2: 3 }; // DOM button -> X button
  const keyNames = {
    Enter: 'Return', Backspace: 'BackSpace', Tab: 'Tab', Escape: 'Escape', Delete: 'Delete',
    Insert: 'Insert', Home: 'Home', End: 'End', PageUp: 'Page_Up', PageDown: 'Page_Down',
    ArrowLeft: 'Left', ArrowRight: 'Right', ArrowUp: 'Up', ArrowDown: 'Down', ' ': 'space',
    ContextMenu: 'Menu',
  };

  class Pane {
    constructor(id) {
      this.id = id;
      this.state = 'connecting';
      this.frames = 0;
      this.driving = false;
      this.viewerId = '';
      this.pc = null;
      this.lastError = '';
      const el = this.el = tpl.content.firstElementChild.cloneNode(true);
      this.q = (s) => el.querySelector(s);
      this.video = this.q('video');
      this.stage = this.q('.stage');
      this.q('.title').textContent = id;
      this.q('.takeover').addEventListener('click', () => this.takeover());
      this.q('.handback').addEventListener('click', () => this.handback());
      this.q('.decline').addEventListener('click', () => decline(this.id));
      this.q('.reconnect').addEventListener('click', () => this.connect());
      this.q('.close').addEventListener('click', () => this.close());
      this.steps = [];
      this.wireInput();
      document.getElementById('panes').append(el);
      this.countFrames();
      this.update(targets.get(id));
      this.connect();
    }

    setState(s, msg) {
      this.state = s;
      const ov = this.q('.overlay');
      const text = { connecting: 'connecting…', lost: 'Stream lost', gone: 'Target gone' }[s] || '';
      ov.hidden = s === 'live';
      this.q('.msg').textContent = msg ? text + ' — ' + msg : text;
      this.q('.reconnect').hidden = s !== 'lost';
    }

    countFrames() {
      const v = this.video;
      if (!v.requestVideoFrameCallback) return;
      const tick = () => {
        this.frames++;
        if (this.state === 'connecting' && this.pc && this.pc.connectionState === 'connected') this.setState('live');
        v.requestVideoFrameCallback(tick);
      };
      v.requestVideoFrameCallback(tick);
    }

    async connect() {
      this.teardown();
      this.setState('connecting');
      this.frames = 0;
      const pc = this.pc = videoPeer(this.video);
      this.pointer = pc.createDataChannel('pointer', { ordered: false, maxRetransmits: 0 });
      this.input = pc.createDataChannel('input');
      pc.onconnectionstatechange = () => {
        if (pc !== this.pc) return;
        const s = pc.connectionState;
        if (s === 'connected' && this.frames > 0) this.setState('live');
        if (s === 'failed' || s === 'closed' || s === 'disconnected') {
          if (this.state !== 'gone') this.setState('lost');
        }
      };
      try {
        const r = await offerWHEP(pc, '/api/whep/' + encodeURIComponent(this.id));
        if (pc !== this.pc) return;
        if (r.status === 404) { this.setState('gone', r.body.trim()); this.teardown(); return; }
        if (r.status !== 201) { this.fail(r.body.trim() || ('HTTP ' + r.status)); return; }
        this.resource = r.resource;
        this.viewerId = this.resource.split('/').pop();
        await pc.setRemoteDescription({ type: 'answer', sdp: r.body });
      } catch (e) {
        if (pc === this.pc) this.fail(e.message || String(e));
      }
    }

    fail(msg) {
      this.lastError = msg;
      this.q('.error').textContent = msg;
      this.setState('lost', msg);
    }

    teardown() {
      if (this.pc) {
        const pc = this.pc;
        this.pc = null;
        pc.close();
      }
      if (this.resource) {
        api(this.resource, { method: 'DELETE' }).catch(() => {});
        this.resource = '';
      }
      this.viewerId = '';
      this.driving = false;
    }

    close() {
      this.teardown();
      this.el.remove();
      panes.delete(this.id);
      renderStrips();
    }

    // update shows what /api/targets says of the target (undefined: gone).
    update(t) {
      if (!t) {
        if (polled && this.state !== 'gone') {
          this.teardown();
          this.setState('gone');
          this.q('.badge').textContent = '';
          this.q('.takeover').hidden = true;
          this.q('.handback').hidden = true;
          this.q('.needs').hidden = true;
        }
        return;
      }
      this.target = t;
      // Why its last stream stopped by itself, said until a picture shows.
      if (t.stopped && (this.state === 'connecting' || this.state === 'lost')) {
        this.setState(this.state, t.stopped.code + ': ' + t.stopped.message);
      }
      this.q('.title').textContent = paneTitle(t);
      this.q('.kind').textContent = t.id + ' · ' + t.kind;
      this.q('.viewers').textContent = t.viewers + (t.viewers === 1 ? ' viewer' : ' viewers');
      const badge = this.q('.badge');
      this.driving = t.mode === 'user' && !!t.you_drive;
      if (t.mode !== 'user') {
        badge.textContent = 'Agent is driving' + (t.holder ? ' (' + t.holder + ')' : '');
        badge.className = 'badge agent';
      } else if (this.driving) {
        badge.textContent = 'You are driving';
        badge.className = 'badge you';
      } else {
        badge.textContent = (t.user || 'someone') + ' is driving';
        badge.className = 'badge other';
      }
      this.stage.classList.toggle('driving', this.driving);
      this.q('.takeover').hidden = this.driving || this.state === 'gone';
      this.q('.handback').hidden = !this.driving;
      this.drawAgent(t.agent);
      const nd = this.q('.needs');
      nd.hidden = !t.needs;
      this.q('.reason').textContent = t.needs ? t.needs.reason : '';
      this.q('.needs-by').textContent = t.needs ? '(' + t.needs.session + (t.needs.user ? '; ' + t.needs.user + ' took it over' : ': take it over, do it, hand it back') + ')' : '';
    }

    // picture maps a point of the page to the picture's own pixels (the
    // video is letterboxed inside its box: object-fit contain).
    geometry() {
      const v = this.video;
      const r = v.getBoundingClientRect();
      const vw = v.videoWidth, vh = v.videoHeight;
      if (!vw || !vh) return null;
      const s = Math.min(r.width / vw, r.height / vh);
      return { r: r, s: s, ox: (r.width - vw * s) / 2, oy: (r.height - vh * s) / 2, vw: vw, vh: vh };
    }

    picture(ev) {
      const g = this.geometry();
      if (!g) return null;
      const x = (ev.clientX - g.r.left - g.ox) / g.s;
      const y = (ev.clientY - g.r.top - g.oy) / g.s;
      if (x < 0 || y < 0 || x >= g.vw || y >= g.vh) return null;
      return { x: Math.floor(x), y: Math.floor(y) };
    }

    drawAgent(a) {
      const cur = this.q('.cursor'), box = this.q('.box'), act = this.q('.agent-act');
      cur.hidden = true;
      box.hidden = true;
      if (!a) { act.textContent = ''; return; }
      act.textContent = 'agent: ' + a.verb + (a.ref ? ' ' + a.ref : '') +
        (a.point ? ' at ' + a.point.x + ',' + a.point.y : '') + ' · ' + new Date(a.at).toLocaleTimeString();
      const g = this.geometry();
      if (!g) return;
      const sr = this.stage.getBoundingClientRect();
      const dx = g.r.left - sr.left + g.ox, dy = g.r.top - sr.top + g.oy;
      if (a.point) {
        cur.style.left = (dx + a.point.x * g.s) + 'px';
        cur.style.top = (dy + a.point.y * g.s) + 'px';
        cur.hidden = false;
      }
      if (a.box) {
        box.style.left = (dx + a.box.x * g.s) + 'px';
        box.style.top = (dy + a.box.y * g.s) + 'px';
        box.style.width = (a.box.w * g.s) + 'px';
        box.style.height = (a.box.h * g.s) + 'px';
        box.hidden = false;
      }
    }

    send(msg) {
      const ch = msg.t === 'move' ? this.pointer : this.input;
      if (!this.driving || !ch || ch.readyState !== 'open') return false;
      ch.send(JSON.stringify(msg));
      return true;
    }

    wireInput() {
      const v = this.video, st = this.stage;
      let moveQueued = null;
      v.addEventListener('pointermove', (ev) => {
        if (!this.driving) return;
        const p = this.picture(ev);
        if (!p) return;
        if (!moveQueued) requestAnimationFrame(() => { this.send(moveQueued); moveQueued = null; });
        moveQueued = { t: 'move', x: p.x, y: p.y };
      });
      v.addEventListener('pointerdown', (ev) => {
        if (!this.driving) return;
        const p = this.picture(ev);
        if (!p || !jsButton[ev.button]) return;
        ev.preventDefault();
        st.focus();
        this.send({ t: 'down', x: p.x, y: p.y, button: jsButton[ev.button] });
      });
      v.addEventListener('pointerup', (ev) => {
        if (!this.driving) return;
        const p = this.picture(ev);
        if (!p || !jsButton[ev.button]) return;
        ev.preventDefault();
        this.send({ t: 'up', x: p.x, y: p.y, button: jsButton[ev.button] });
      });
      v.addEventListener('contextmenu', (ev) => { if (this.driving) ev.preventDefault(); });
      v.addEventListener('wheel', (ev) => {
        if (!this.driving) return;
        const p = this.picture(ev);
        if (!p) return;
        ev.preventDefault();
        const step = (d) => (d === 0 ? 0 : Math.sign(d) * Math.max(1, Math.round(Math.abs(d) / 100)));
        this.send({ t: 'wheel', x: p.x, y: p.y, dx: step(ev.deltaX), dy: step(ev.deltaY) });
      }, { passive: false });
      st.addEventListener('keydown', (ev) => {
        if (!this.driving) return;
        if (['Control', 'Shift', 'Alt', 'Meta', 'AltGraph', 'CapsLock'].includes(ev.key)) return;
        ev.preventDefault();
        if (ev.key.length === 1 && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
          this.send({ t: 'text', text: ev.key });
          return;
        }
        let name = keyNames[ev.key] || (/^F\d{1,2}$/.test(ev.key) ? ev.key : (ev.key.length === 1 ? ev.key.toLowerCase() : ''));
        if (!name) return;
        const mods = [];
        if (ev.ctrlKey) mods.push('ctrl');
        if (ev.altKey) mods.push('alt');
        if (ev.shiftKey && ev.key.length !== 1) mods.push('shift');
        if (ev.metaKey) mods.push('super');
        this.send({ t: 'key', chord: mods.concat([name]).join('+') });
      });
    }

    // pollTrace lists the target's recent steps, of every session, in
    // the panel beside the pane (the newest last).
    async pollTrace() {
      if (this.tracing) return;
      this.tracing = true;
      try {
        const r = await api('/api/trace/' + encodeURIComponent(this.id));
        if (r.ok) this.renderTrace((await r.json()).steps || []);
      } catch (e) { /* the next poll tries again */ }
      this.tracing = false;
    }

    renderTrace(steps) {
      this.steps = steps;
      const ol = this.q('.steps');
      ol.textContent = '';
      this.q('.trace-empty').hidden = steps.length > 0;
      steps.forEach((s) => {
        const li = document.createElement('li');
        if (!s.ok) li.className = 'refused';
        const who = document.createElement('span');
        who.className = 'who';
        who.textContent = s.session + ': ';
        li.append(who, document.createTextNode(stepLine(s)));
        ol.append(li);
      });
      const panel = this.q('.trace');
      panel.scrollTop = panel.scrollHeight; // the newest step in view
    }

    async takeover() { await this.control('takeover'); }
    async handback() { await this.control('handback'); }

    async control(what) {
      this.q('.error').textContent = '';
      if (!this.viewerId) { this.q('.error').textContent = 'not connected: watch first'; return; }
      try {
        const r = await api('/api/' + what + '/' + encodeURIComponent(this.id), {
          method: 'POST', headers: { 'X-Vibespace-Viewer': this.viewerId },
        });
        const a = await r.json();
        this.lastAnswer = a;
        if (!a.ok) this.q('.error').textContent = a.message + ' [' + a.code + ']';
        else if (what === 'takeover') this.stage.focus();
      } catch (e) {
        this.q('.error').textContent = e.message;
      }
      await refreshNow();
    }
  }

  async function refreshNow() {
    try { await load(); } catch (e) { /* the next poll says it */ }
  }

  // videoPeer is a peer connection that receives one video into video.
  function videoPeer(video) {
    const pc = new RTCPeerConnection();
    pc.addTransceiver('video', { direction: 'recvonly' });
    pc.ontrack = (e) => {
      video.srcObject = e.streams && e.streams[0] ? e.streams[0] : new MediaStream([e.track]);
      video.play().catch(() => {});
    };
    return pc;
  }

  // offerWHEP sends pc's offer (every candidate gathered) to the WHEP
  // address path and answers the status, the body (the answer's SDP, or why
  // not) and the viewer's resource address.
  async function offerWHEP(pc, path) {
    await pc.setLocalDescription(await pc.createOffer());
    await gathered(pc);
    const r = await api(path, {
      method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: pc.localDescription.sdp,
    });
    return { status: r.status, body: await r.text(), resource: r.headers.get('Location') || '' };
  }

  // gathered resolves when every local candidate is in the description (or
  // after 3 s: on loopback it takes a few milliseconds).
  function gathered(pc) {
    if (pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, 3000);
      pc.addEventListener('icegatheringstatechange', () => {
        if (pc.iceGatheringState === 'complete') { clearTimeout(t); resolve(); }
      });
    });
  }

  window.addEventListener('pagehide', () => {
    panes.forEach((p) => p.teardown());
    tabs.forEach((tb) => tb.close());
  });

  if (!token) {
    setConn('no viewer token in the address: open the address `watch` printed, with its #token=…');
    return;
  }
  if (solo) document.body.classList.add('solo');
  poll();
  const first = params.get('target');
  if (first) openPane(first);
})();
