// The live view's page. Everything it knows comes from this daemon's own
// API (/api/...), sent with the viewer token read from the URL fragment.
// It never receives what an agent typed: the API carries no text of theirs.
'use strict';
(function () {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get('token') || '';
  const panes = new Map(); // target id -> Pane
  let targets = new Map(); // target id -> target as /api/targets describes it
  let polled = false;

  // window.vibespace lets a person (or a test) look inside from the console.
  const vs = window.vibespace = {
    panes: panes,
    targets: () => Array.from(targets.values()),
    polled: () => polled,
    open: (id) => openPane(id),
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

  async function poll() {
    try {
      const ids = [];
      panes.forEach((p) => { if (p.viewerId) ids.push(p.viewerId); });
      const r = await api('/api/targets', { headers: ids.length ? { 'X-Vibespace-Viewers': ids.join(',') } : {} });
      if (!r.ok) {
        setConn('the daemon refused: ' + r.status + ' ' + (await r.text()).trim());
      } else {
        const data = await r.json();
        targets = new Map((data.targets || []).map((t) => [t.id, t]));
        polled = true;
        setConn('connected · ' + data.viewers + ' viewer(s) in all');
        renderList();
        panes.forEach((p) => p.update(targets.get(p.id)));
      }
    } catch (e) {
      setConn('the daemon does not answer: ' + e.message);
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

  const listEl = document.getElementById('list');
  function renderList() {
    document.getElementById('list-empty').hidden = targets.size > 0;
    listEl.textContent = '';
    targets.forEach((t) => {
      const li = document.createElement('li');
      li.dataset.id = t.id;
      if (panes.has(t.id)) li.classList.add('watching');
      const title = document.createElement('span');
      title.className = 't-title';
      title.textContent = paneTitle(t);
      const meta = document.createElement('span');
      meta.className = 't-meta';
      meta.textContent = t.id + ' · ' + t.kind + ' · ' + (t.holder ? 'held by ' + t.holder : 'not held') +
        ' · ' + (t.mode === 'user' ? 'user drives' : 'agent mode') + ' · ' + t.viewers + ' watching';
      li.append(title, meta);
      li.addEventListener('click', () => openPane(t.id));
      listEl.append(li);
    });
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
      renderList();
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
      const pc = this.pc = new RTCPeerConnection();
      pc.addTransceiver('video', { direction: 'recvonly' });
      this.pointer = pc.createDataChannel('pointer', { ordered: false, maxRetransmits: 0 });
      this.input = pc.createDataChannel('input');
      pc.ontrack = (e) => {
        this.video.srcObject = e.streams && e.streams[0] ? e.streams[0] : new MediaStream([e.track]);
        this.video.play().catch(() => {});
      };
      pc.onconnectionstatechange = () => {
        if (pc !== this.pc) return;
        const s = pc.connectionState;
        if (s === 'connected' && this.frames > 0) this.setState('live');
        if (s === 'failed' || s === 'closed' || s === 'disconnected') {
          if (this.state !== 'gone') this.setState('lost');
        }
      };
      try {
        await pc.setLocalDescription(await pc.createOffer());
        await gathered(pc);
        const r = await api('/api/whep/' + encodeURIComponent(this.id), {
          method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: pc.localDescription.sdp,
        });
        const body = await r.text();
        if (pc !== this.pc) return;
        if (r.status === 404) { this.setState('gone', body.trim()); this.teardown(); return; }
        if (r.status !== 201) { this.fail(body.trim() || ('HTTP ' + r.status)); return; }
        this.resource = r.headers.get('Location') || '';
        this.viewerId = this.resource.split('/').pop();
        await pc.setRemoteDescription({ type: 'answer', sdp: body });
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
      renderList();
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
        }
        return;
      }
      this.target = t;
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
    const ids = [];
    panes.forEach((p) => { if (p.viewerId) ids.push(p.viewerId); });
    try {
      const r = await api('/api/targets', { headers: ids.length ? { 'X-Vibespace-Viewers': ids.join(',') } : {} });
      if (!r.ok) return;
      const data = await r.json();
      targets = new Map((data.targets || []).map((t) => [t.id, t]));
      renderList();
      panes.forEach((p) => p.update(targets.get(p.id)));
    } catch (e) { /* the next poll says it */ }
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

  window.addEventListener('pagehide', () => panes.forEach((p) => p.teardown()));

  if (!token) {
    setConn('no viewer token in the address: open the address `watch` printed, with its #token=…');
    return;
  }
  poll();
  const first = params.get('target');
  if (first) openPane(first);
})();
