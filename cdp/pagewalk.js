// The page road's walk (pagewalk.go): one pass over a document's flat tree
// (open shadow roots and slots as rendered), in an isolated world, that
// emits the accessible nodes Chromium's AX tree would hold, in its
// vocabulary (roles as Accessibility.getFullAXTree names them, names by
// the accname rules as Chromium applies them), without the ignored ones:
// their children are emitted in their place. Called with
// Runtime.callFunctionOn: (budget, after, ...clickable elements); with
// an element after, only what follows it in document order is emitted
// (its descendants, then every later node), under the document: a page
// read past a snapshot's budget. It returns the JSON of {n: [parent, role,
// name, desc, value, flags, level, handle, …], left}: eight entries a
// node, in document order; parent is the index of the node's parent (-1
// for the document); handle names the element for later (a number the
// world keeps while the element lives); left counts the elements the
// budget left out.
function (budget, after, ...clickable) {
  const H = globalThis.__vibespaceHandles || (globalThis.__vibespaceHandles = {byEl: new WeakMap(), byId: new Map(), next: 1, get(id) { const r = this.byId.get(id); const el = r && r.deref(); if (!el) this.byId.delete(id); return el || null; }});
  // The map of handles forgets the elements that are gone, once it has
  // grown: a page that re-renders would otherwise fill it.
  if (H.byId.size > 4096 && H.byId.size > 2 * (H.swept || 0)) {
    for (const [id, r] of H.byId) if (!r.deref()) H.byId.delete(id);
    H.swept = H.byId.size;
  }
  let lastEl = 0; // the handle of the last element emitted: where a cut walk reads on
  const handle = (el) => {
    let id = H.byEl.get(el);
    if (id === undefined) {
      id = H.next++;
      H.byEl.set(el, id);
      H.byId.set(id, new WeakRef(el));
    }
    return id;
  };
  const scripted = new Set(clickable);
  const doc = document;
  const out = [];
  let cut = false, elements = 0; // the budget was reached; elements the walk entered
  // Names of the nodes emitted, by index: a text child that only repeats
  // its parent's name is left out by the builder, and so not sent.
  const names = [];
  let count = 0, left = 0;

  const F = {disabled: 1, focusable: 2, focused: 4, modal: 8, required: 16, multiline: 32, multiselectable: 64,
    checkedTrue: 1 << 8, checkedFalse: 2 << 8, checkedMixed: 3 << 8, pressedTrue: 1 << 10, pressedFalse: 2 << 10, pressedMixed: 3 << 10,
    selected: 1 << 12, hasExpanded: 1 << 13, expanded: 1 << 14, readonly: 1 << 15, invalid: 1 << 16, editable: 1 << 17, clickable: 1 << 18};
  // How a node's text sits against the text before it, as the page lays
  // it out (flags bits 19-21): on a new line, in the next table cell, after
  // a space, or run on (inline pieces with nothing between them:
  // "json." "dumps" "(" read "json.dumps("). get text joins pieces by it.
  const FLOW = {line: 1, cell: 2, space: 3, run: 4, shift: 19};

  const emit = (parent, role, name, desc, value, flags, level, h) => {
    out.push(parent, role, name, desc, value, flags, level, h);
    if (h) lastEl = h;
    names.push(name);
    return count++;
  };

  let focusedEl = doc.activeElement;
  while (focusedEl && focusedEl.shadowRoot && focusedEl.shadowRoot.activeElement) focusedEl = focusedEl.shadowRoot.activeElement;

  const ws = /[ \t\n\r\f]+/g;
  // A name's white space collapsed and trimmed: ASCII white space only (a
  // no-break space is text; String.trim would take it).
  const squash = (s) => s.replace(ws, ' ').replace(/^ | $/g, '');

  // The parts of an element's computed style the walk reads, read once a
  // walk (each read of a computed style computes a string).
  const styles = new Map();
  const style = (el) => {
    let s = styles.get(el);
    if (!s) {
      const c = getComputedStyle(el);
      s = {display: c.display, visibility: c.visibility, cursor: c.cursor, c, ws: null, get whiteSpace() { return this.ws === null ? (this.ws = this.c.whiteSpace) : this.ws; }};
      styles.set(el, s);
    }
    return s;
  };

  // Children in the flat tree: a shadow host's shadow root, a slot's
  // assigned nodes (else its fallback content), else the light children.
  let shadows = 0; // shadow hosts on the page at all (then a node's tree scope is asked)
  const kids = (n) => {
    if (n.nodeType === 1) {
      if (n.shadowRoot) { shadows++; return n.shadowRoot.childNodes; }
      if (n.localName === 'slot') {
        const a = n.assignedNodes();
        if (a.length) return a;
      }
    }
    return n.childNodes;
  };

  const hiddenByAria = (el) => el.getAttribute('aria-hidden') === 'true';

  const ARIA = new Set(['alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'button', 'caption', 'cell', 'checkbox', 'code', 'columnheader', 'combobox', 'comment', 'complementary', 'contentinfo', 'definition', 'deletion', 'dialog', 'directory', 'document', 'emphasis', 'feed', 'figure', 'form', 'generic', 'grid', 'gridcell', 'group', 'heading', 'img', 'image', 'insertion', 'link', 'list', 'listbox', 'listitem', 'log', 'main', 'mark', 'marquee', 'math', 'menu', 'menubar', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'meter', 'navigation', 'none', 'note', 'option', 'paragraph', 'presentation', 'progressbar', 'radio', 'radiogroup', 'region', 'row', 'rowgroup', 'rowheader', 'scrollbar', 'search', 'searchbox', 'separator', 'slider', 'spinbutton', 'status', 'strong', 'subscript', 'suggestion', 'superscript', 'switch', 'tab', 'table', 'tablist', 'tabpanel', 'term', 'textbox', 'time', 'timer', 'toolbar', 'tooltip', 'tree', 'treegrid', 'treeitem']);

  // Roles whose name comes from their content (accname's "name from
  // content"), as Chromium applies it.
  const FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'DisclosureTriangle', 'term', 'LayoutTableCell', 'Abbr', 'caption', 'Legend', 'listitem', 'LabelText', 'Figcaption', 'code', 'emphasis', 'strong', 'mark', 'time', 'subscript', 'superscript', 'deletion', 'insertion', 'comment', 'suggestion', 'MenuListOption', 'PopUpButton', 'ToggleButton']);
  // Of those, the ones Chromium names in its tree (the others' content is
  // read for an ancestor's name but they print unnamed).
  const NAMED_FROM_CONTENT = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem', 'DisclosureTriangle', 'term', 'LayoutTableCell', 'MenuListOption', 'PopUpButton', 'ToggleButton']);

  // inSectioning: whether el is inside sectioning content (or, for a
  // header or footer, main), where a header, footer or aside is no
  // landmark.
  const inSectioning = (el, main) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const t = p.localName;
      if (t === 'article' || t === 'aside' || t === 'nav' || t === 'section' || main && t === 'main') return true;
    }
    return false;
  };

  const isDataTable = (t) => {
    if (t.getAttribute('role')) return true;
    if (t.isContentEditable) return true;
    if (t.caption || t.tHead || t.tFoot || t.querySelector(':scope > colgroup, :scope > col')) return true;
    if (t.hasAttribute('summary') || t.hasAttribute('rules')) return true;
    for (const c of t.querySelectorAll('th, td')) {
      if (c.closest('table') !== t) continue;
      if (c.localName === 'th') return true;
      if (c.hasAttribute('abbr') || c.hasAttribute('axis') || c.hasAttribute('scope') || c.hasAttribute('headers')) return true;
    }
    return t.rows.length >= 20;
  };

  const tableOf = (el) => el.closest('table');
  const dataTables = new Map();
  const dataTable = (t) => {
    if (!t) return false;
    let d = dataTables.get(t);
    if (d === undefined) { d = isDataTable(t); dataTables.set(t, d); }
    return d;
  };

  const inputRole = (el) => {
    switch (el.type) {
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
      case 'search': return el.hasAttribute('list') ? 'combobox' : 'searchbox';
      case 'number': return 'spinbutton';
      case 'range': return 'slider';
      case 'color': return 'ColorWell';
      case 'date': case 'month': case 'week': return 'Date';
      case 'datetime-local': return 'DateTime';
      case 'time': return 'InputTime';
      case 'hidden': return null;
    }
    return el.hasAttribute('list') ? 'combobox' : 'textbox';
  };

  // The role Chromium gives el by its tag (the ARIA role attribute aside).
  const nativeRole = (el) => {
    // Tag names mean HTML's roles in HTML only (an SVG <title> or a
    // <select> inside SVG is no HTML element).
    if (el.namespaceURI !== XHTML) {
      switch (el.localName) {
        case 'svg': return el.namespaceURI === SVG && !(el.parentElement && el.parentElement.namespaceURI === SVG) ? 'image' : null;
        case 'a': return el.namespaceURI === SVG && (el.hasAttribute('href') || el.hasAttributeNS('http://www.w3.org/1999/xlink', 'href')) ? 'link' : null;
        case 'math': return 'math';
      }
      return null;
    }
    switch (el.localName) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'abbr': return el.hasAttribute('title') ? 'Abbr' : null;
      case 'address': return 'group';
      case 'article': return 'article';
      case 'aside': return inSectioning(el, false) && !(el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title')) ? 'generic' : 'complementary';
      case 'audio': return el.hasAttribute('controls') ? 'Audio' : null;
      case 'blockquote': return 'blockquote';
      case 'br': return 'LineBreak';
      case 'button': return 'button';
      case 'canvas': return 'Canvas';
      case 'caption': return 'caption';
      case 'code': return 'code';
      case 'dd': return 'definition';
      case 'del': case 's': return 'deletion';
      case 'details': return 'group';
      case 'dfn': return 'term';
      case 'dialog': return 'dialog';
      case 'div': return 'generic';
      case 'dl': return 'DescriptionList';
      case 'dt': return 'term';
      case 'em': return 'emphasis';
      case 'fieldset': return 'group';
      case 'figcaption': return 'Figcaption';
      case 'figure': return 'figure';
      case 'footer': return inSectioning(el, true) ? 'SectionFooter' : 'contentinfo';
      case 'form': return 'form';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'header': return inSectioning(el, true) ? 'SectionHeader' : 'banner';
      case 'hgroup': return 'group';
      case 'hr': return 'separator';
      case 'iframe': case 'frame': return 'Iframe';
      case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('title') && !el.hasAttribute('aria-label') ? null : 'image';
      case 'input': return inputRole(el);
      case 'ins': return 'insertion';
      case 'label': return 'LabelText';
      case 'legend': return 'Legend';
      case 'li': return 'listitem';
      case 'main': return 'main';
      case 'mark': return 'mark';
      case 'math': return 'math';
      case 'menu': case 'ol': case 'ul': return 'list';
      case 'meter': return 'meter';
      case 'nav': return 'navigation';
      case 'optgroup': return 'group';
      case 'option': return 'option';
      case 'output': return 'status';
      case 'p': return 'paragraph';
      case 'pre': return 'generic';
      case 'progress': return 'progressbar';
      case 'search': return 'search';
      case 'section': return 'section';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'span': return 'generic';
      case 'strong': return 'strong';
      case 'sub': return 'subscript';
      case 'summary': return 'DisclosureTriangle';
      case 'sup': return 'superscript';
      case 'svg': return 'image';
      case 'table': return dataTable(el) ? 'table' : 'LayoutTable';
      case 'tbody': return null;
      case 'thead': case 'tfoot': return dataTable(tableOf(el)) ? 'rowgroup' : null;
      case 'td': return dataTable(tableOf(el)) ? 'cell' : 'LayoutTableCell';
      case 'th': {
        if (!dataTable(tableOf(el))) return 'LayoutTableCell';
        const sc = el.getAttribute('scope');
        if (sc === 'row' || sc === 'rowgroup') return 'rowheader';
        if (sc === 'col' || sc === 'colgroup') return 'columnheader';
        // A header in a head row heads its column; one in a row of data
        // cells heads its row.
        const row = el.parentElement;
        if (row && row.parentElement && row.parentElement.localName === 'thead') return 'columnheader';
        return row && row.querySelector(':scope > td') ? 'rowheader' : 'columnheader';
      }
      case 'textarea': return 'textbox';
      case 'time': return 'time';
      case 'tr': return dataTable(tableOf(el)) ? 'row' : 'LayoutTableRow';
      case 'video': return 'Video';
    }
    return el.localName.includes('-') ? 'generic' : null;
  };

  const XHTML = 'http://www.w3.org/1999/xhtml', SVG = 'http://www.w3.org/2000/svg';
  const PARTS = {__proto__: null, tr: 'table', td: 'table', th: 'table', thead: 'table', tbody: 'table', tfoot: 'table', caption: 'table', li: 'ul, ol, menu'};

  const roleOf = (el) => {
    const attr = el.getAttribute('role');
    if (attr) {
      for (const r of attr.trim().toLowerCase().split(/\s+/)) {
        if (ARIA.has(r)) {
          if ((r === 'none' || r === 'presentation') && (el.tabIndex >= 0 && el.hasAttribute('tabindex') || el.hasAttribute('aria-label'))) break;
          if (r === 'img') return 'image';
          if (r === 'presentation') return 'none';
          return r;
        }
      }
    }
    // A table's or a list's parts are presentational with it (ARIA's
    // required owned elements inherit none/presentation).
    const owner = el.namespaceURI === XHTML ? PARTS[el.localName] : undefined;
    if (owner) {
      const o = el.closest(owner);
      if (o) {
        const or = o.getAttribute('role');
        if (or && /^\s*(none|presentation)\b/i.test(or) && !(o.hasAttribute('tabindex') || o.hasAttribute('aria-label'))) return null;
      }
    }
    const n = nativeRole(el);
    if (n === 'section') return (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || el.hasAttribute('title')) ? 'region' : 'generic';
    return n;
  };

  // The text of a text node as it renders: white space collapsed unless
  // the style keeps it.
  const textOf = (t, st) => {
    const s = t.data;
    const w = st ? st.whiteSpace : 'normal';
    if (w === 'pre' || w === 'pre-wrap' || w === 'break-spaces') return s;
    if (w === 'pre-line') return s.replace(/[ \t]+/g, ' ');
    return s.replace(ws, ' ');
  };

  // accname: the text alternative of node n for a name being computed.
  // seeHidden is set while the text of elements a name or description
  // points at (aria-labelledby, aria-describedby) is read: an invisible
  // one counts there, as accname has it.
  let seeHidden = false;
  const referenced = (els) => {
    seeHidden = true;
    try {
      return squash(els.map((t) => textAlt(t, 0, new Set(), false)).join(' '));
    } finally {
      seeHidden = false;
    }
  };
  const textAlt = (n, depth, visited, inLabel) => {
    if (depth > 30) return '';
    // The common case, an element holding one text: its text.
    if (depth === 0 && n.nodeType === 1 && n.childNodes.length === 1 && n.firstChild.nodeType === 3 && !n.shadowRoot && pseudoCandidates && !pseudoCandidates.has(n)) {
      return seeHidden || style(n).visibility === 'visible' ? n.firstChild.data : '';
    }
    if (n.nodeType === 3) {
      const p = n.parentElement;
      if (p && !seeHidden && style(p).visibility !== 'visible') return '';
      return n.data;
    }
    if (n.nodeType !== 1 && n.nodeType !== 11) return '';
    if (n.nodeType === 1) {
      if (visited.has(n)) return '';
      visited.add(n);
      const st = style(n);
      if (st.display === 'none' || hiddenByAria(n) && depth > 0) return '';
      if (n.localName === 'script' || n.localName === 'style' || n.localName === 'template' || n.localName === 'noscript') return '';
      // An element that is not visible gives nothing of its own; its
      // visible children still count.
      const shown = seeHidden || st.visibility === 'visible';
      if (depth > 0 && shown) {
        const lb = n.getAttribute('aria-label');
        if (lb && lb.trim()) return lb;
        const r = roleOf(n);
        // An embedded control contributes its value.
        if (r === 'textbox' || r === 'searchbox') return n.value !== undefined ? n.value : n.textContent;
        if (r === 'combobox' && n.localName === 'select') return n.selectedOptions[0] ? n.selectedOptions[0].text : '';
        if (r === 'spinbutton' || r === 'slider') return n.value !== undefined ? String(n.value) : (n.getAttribute('aria-valuetext') || n.getAttribute('aria-valuenow') || '');
        if (n.localName === 'img' || (n.localName === 'input' && n.type === 'image')) return n.getAttribute('alt') || n.getAttribute('title') || '';
        if (n.localName === 'input' && (n.type === 'button' || n.type === 'submit' || n.type === 'reset')) return n.value || (n.type === 'submit' ? 'Submit' : n.type === 'reset' ? 'Reset' : '');
      }
      let s = '';
      const bef = pseudoText(n, '::before');
      if (bef) s += bef;
      for (const c of kids(n)) {
        const part = textAlt(c, depth + 1, visited, inLabel);
        if (!part) continue;
        if (c.nodeType === 1 && isBlock(c)) s += ' ' + part + ' ';
        else s += part;
      }
      const aft = pseudoText(n, '::after');
      if (aft) s += aft;
      if (!s.trim() && depth > 0 && shown) {
        const title = n.getAttribute('title');
        if (title) return title;
      }
      return s;
    }
    let s = '';
    for (const c of n.childNodes) s += textAlt(c, depth + 1, visited, inLabel);
    return s;
  };

  const isBlock = (el) => {
    const d = style(el).display;
    return !(d === 'inline' || d === 'contents' || d.startsWith('inline'));
  };

  // The text a ::before or ::after adds: its content's strings and
  // quotes, in order.
  // Which elements may have generated content: the document's style
  // sheets are read once for rules on ::before and ::after, and only the
  // elements their selectors match (and <q>, whose quotes are the user
  // agent's) have their pseudo-elements' style computed, which costs as
  // much as the element's own. A sheet that cannot be read (another
  // origin's) or a shadow tree makes every element a candidate.
  const pseudoCandidates = (() => {
    const sels = [];
    let all = false;
    const scan = (rules) => {
      for (const r of rules) {
        if (all) return;
        if (r.selectorText !== undefined) {
          if (/:(before|after)\b/i.test(r.selectorText)) {
            for (const part of r.selectorText.split(',')) {
              if (!/:(before|after)\b/i.test(part)) continue;
              const base = part.replace(/::?(before|after)\b/gi, '').trim();
              sels.push(base === '' || /[>+~]$/.test(base) ? '*' : base);
            }
          }
        }
        if (r.cssRules) scan(r.cssRules);
        else if (r.styleSheet) { // @import
          let rs;
          try { rs = r.styleSheet.cssRules; } catch (e) { all = true; return; }
          if (rs) scan(rs);
        }
      }
    };
    for (const sh of doc.styleSheets) {
      let rules;
      try { rules = sh.cssRules; } catch (e) { all = true; break; }
      if (rules) scan(rules);
    }
    if (all) return null;
    const set = new Set(doc.getElementsByTagName('q'));
    if (sels.length) {
      try {
        for (const el of doc.querySelectorAll(sels.join(','))) set.add(el);
      } catch (e) {
        for (const sel of sels) {
          try { for (const el of doc.querySelectorAll(sel)) set.add(el); } catch (e2) { return null; }
        }
      }
    }
    return set;
  })();

  // pseudoParts is what a ::before or ::after adds, in order: its texts
  // (strings and quotes) and, for an image (url()), IMAGE.
  const IMAGE = {};
  const pseudoParts = (el, which) => {
    if (pseudoCandidates && !pseudoCandidates.has(el) && (shadows === 0 ? true : el.getRootNode() === doc)) return null;
    const c = getComputedStyle(el, which).content;
    if (!c || c === 'none' || c === 'normal') return null;
    const parts = [];
    let s = '';
    for (const m of c.matchAll(/url\((?:"(?:[^"\\]|\\.)*"|[^)]*)\)|"((?:[^"\\]|\\.)*)"|(open-quote)|(close-quote)/g)) {
      if (m[0].startsWith('url(')) {
        if (s) parts.push(s);
        s = '';
        parts.push(IMAGE);
      } else if (m[1] !== undefined) s += m[1].replace(/\\(.)/g, '$1');
      else if (m[2]) s += '\u201c';
      else if (m[3]) s += '\u201d';
    }
    if (s) parts.push(s);
    return parts;
  };
  const pseudoText = (el, which) => {
    const parts = pseudoParts(el, which);
    return parts ? parts.filter((p) => p !== IMAGE).join('') : '';
  };

  const byIds = (el, attr) => {
    const v = el.getAttribute(attr);
    if (!v) return null;
    const root = el.getRootNode();
    const els = [];
    for (const id of v.trim().split(/\s+/)) {
      const t = root.getElementById ? root.getElementById(id) : doc.getElementById(id);
      if (t) els.push(t);
    }
    return els.length ? els : null;
  };

  // The labels of each control, by one pass over each tree scope's
  // <label> elements (a control's own .labels searches its whole scope
  // each time: a page of many buttons would cost the square).
  const labelMaps = new Map();
  const labelsOf = (el) => {
    const root = el.getRootNode();
    let m = labelMaps.get(root);
    if (!m) {
      m = new Map();
      for (const l of root.querySelectorAll('label')) {
        const c = l.control;
        if (!c) continue;
        const ls = m.get(c);
        if (ls) ls.push(l); else m.set(c, [l]);
      }
      labelMaps.set(root, m);
    }
    return m.get(el) || null;
  };

  const labelText = (label, control) => {
    let s = '';
    const visited = new Set([control]);
    for (const c of kids(label)) s += textAlt(c, 1, visited, true);
    return squash(s);
  };

  // The accessible name of el with role r, and where it came from
  // ('attr', 'content', 'title', 'placeholder', '').
  const nameOf = (el, r) => {
    const lb = byIds(el, 'aria-labelledby');
    if (lb) {
      const s = referenced(lb);
      if (s) return [s, 'attr'];
    }
    const al = el.getAttribute('aria-label');
    if (al && al.trim()) return [squash(al), 'attr'];
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'button' || tag === 'meter' || tag === 'progress' || tag === 'output') {
      if (tag === 'input' && (el.type === 'button' || el.type === 'submit' || el.type === 'reset')) {
        return [el.value || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : ''), 'attr'];
      }
      if (tag === 'input' && el.type === 'image') {
        const a = el.getAttribute('alt');
        if (a) return [squash(a), 'attr'];
      }
      const ls = labelsOf(el);
      if (ls) {
        const s = squash(ls.map((l) => labelText(l, el)).join(' '));
        if (s) return [s, 'attr'];
      }
      if (tag === 'input' && el.type === 'image') {
        const v = el.value || el.getAttribute('title');
        return [v || 'Submit', 'attr'];
      }
    }
    if (tag === 'img' || tag === 'area') {
      const a = el.getAttribute('alt');
      if (a !== null && a.trim()) return [squash(a), 'attr'];
    }
    if (tag === 'fieldset') {
      const lg = Array.from(el.children).find((c) => c.localName === 'legend');
      if (lg) { const s = squash(textAlt(lg, 0, new Set(), false)); if (s) return [s, 'attr']; }
    }
    if (tag === 'table') {
      const cp = el.caption;
      if (cp) { const s = squash(textAlt(cp, 0, new Set(), false)); if (s) return [s, 'attr']; }
      const sm = el.getAttribute('summary');
      if (sm && sm.trim()) return [squash(sm), 'attr'];
    }
    if (tag === 'svg') {
      const t = Array.from(el.children).find((c) => c.localName === 'title');
      if (t) { const s = squash(t.textContent); if (s) return [s, 'attr']; }
    }
    if (r === 'Abbr') {
      const t = el.getAttribute('title');
      if (t && t.trim()) return [squash(t), 'title'];
    }
    if (FROM_CONTENT.has(r)) {
      const s = squash(textAlt(el, 0, new Set(), false));
      if (s) return [NAMED_FROM_CONTENT.has(r) ? s : '', 'content'];
    }
    // Chromium names no generic element from its title (a generic
    // container's name is prohibited): the title is its description.
    const title = r === 'generic' ? null : el.getAttribute('title');
    if (title && title.trim()) return [squash(title), 'title'];
    const ph = el.getAttribute('placeholder') || (tag === 'input' || tag === 'textarea' ? '' : el.getAttribute('aria-placeholder'));
    if (ph && ph.trim() && (tag === 'input' || tag === 'textarea')) return [squash(ph), 'placeholder'];
    return ['', ''];
  };

  const descOf = (el, from) => {
    const db = byIds(el, 'aria-describedby');
    if (db) {
      const s = referenced(db);
      if (s) return s;
    }
    const ad = el.getAttribute('aria-description');
    if (ad && ad.trim()) return squash(ad);
    const title = el.getAttribute('title');
    if (title && title.trim() && from !== 'title') return squash(title);
    return '';
  };

  // focusableEl: whether el takes focus (disabled and invisible aside):
  // a tabindex, or focusable by its kind. An element's tabIndex alone
  // does not tell (an <a> without href has 0 and takes no focus).
  const focusableEl = (el, tag) => {
    if (el.hasAttribute('tabindex') && !isNaN(parseInt(el.getAttribute('tabindex'), 10))) return true;
    switch (tag) {
      case 'a': case 'area': return el.hasAttribute('href');
      case 'button': case 'select': case 'textarea': return true;
      case 'input': return el.type !== 'hidden';
      case 'summary': return !!el.parentElement && el.parentElement.localName === 'details' && el.parentElement.querySelector(':scope > summary') === el;
      case 'audio': case 'video': return el.hasAttribute('controls');
      case 'dialog': return el.open; // Chromium makes an open dialog focusable
      case '~a': return el.hasAttribute('href') || el.hasAttributeNS('http://www.w3.org/1999/xlink', 'href');
    }
    return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
  };

  // The elements :disabled can match.
  const FORM = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset']);
  let ariaDisabled = 0; // aria-disabled="true" elements the walk is inside

  const tri = (v, t, f, m) => v === 'true' ? t : v === 'false' ? f : v === 'mixed' ? m : 0;

  const flagsOf = (el, r, st) => {
    let f = 0;
    const tag = el.localName;
    const disabled = ariaDisabled > 0 || FORM.has(tag) && el.matches(':disabled');
    if (disabled) f |= F.disabled;
    const focusable = !disabled && st.visibility === 'visible' && focusableEl(el, tag);
    if (focusable) f |= F.focusable;
    if (el === focusedEl) f |= F.focused;
    if (el.getAttribute('aria-modal') === 'true' && (r === 'dialog' || r === 'alertdialog') || tag === 'dialog' && el.matches(':modal')) f |= F.modal;
    if (el.required || el.getAttribute('aria-required') === 'true') f |= F.required;
    if (tag === 'textarea' || el.getAttribute('aria-multiline') === 'true') f |= F.multiline;
    if (tag === 'select' && el.multiple || el.getAttribute('aria-multiselectable') === 'true') f |= F.multiselectable;
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio') && (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio')) {
      f |= el.indeterminate && el.type === 'checkbox' ? F.checkedMixed : el.checked ? F.checkedTrue : F.checkedFalse;
    } else if (r === 'checkbox' || r === 'radio' || r === 'switch' || r === 'menuitemcheckbox' || r === 'menuitemradio') {
      f |= tri(el.getAttribute('aria-checked'), F.checkedTrue, F.checkedFalse, F.checkedMixed) || F.checkedFalse;
    }
    const pr = el.getAttribute('aria-pressed');
    if (pr && (r === 'button')) f |= tri(pr, F.pressedTrue, F.pressedFalse, F.pressedMixed);
    if (tag === 'option' ? el.selected : el.getAttribute('aria-selected') === 'true') f |= F.selected;
    const ex = el.getAttribute('aria-expanded');
    if (ex === 'true' || ex === 'false') { f |= F.hasExpanded; if (ex === 'true') f |= F.expanded; }
    else if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') { f |= F.hasExpanded; if (el.parentElement.open) f |= F.expanded; }
    else if (tag === 'select' && r === 'combobox') f |= F.hasExpanded;
    else if ((tag === 'button' || tag === 'input') && el.popoverTargetElement) { // a popover's invoker
      f |= F.hasExpanded;
      try { if (el.popoverTargetElement.matches(':popover-open')) f |= F.expanded; } catch (e) { /* no :popover-open */ }
    }
    if (el.readOnly && (tag === 'input' || tag === 'textarea') || el.getAttribute('aria-readonly') === 'true') f |= F.readonly;
    const inv = el.getAttribute('aria-invalid');
    if (inv && inv !== 'false') f |= F.invalid;
    if (tag === 'textarea' || tag === 'input' && (r === 'textbox' || r === 'searchbox' || r === 'spinbutton' || r === 'combobox') || el.isContentEditable) f |= F.editable;
    return f;
  };

  const valueOf = (el, r) => {
    const tag = el.localName;
    if (tag === 'input') {
      if (el.type === 'checkbox' || el.type === 'radio' || el.type === 'button' || el.type === 'submit' || el.type === 'reset' || el.type === 'image') return '';
      if (el.type === 'file') return el.files && el.files.length ? Array.from(el.files).map((f) => f.name).join(', ') : 'No file chosen';
      if (el.type === 'password') return el.value.replace(/./gu, '•');
      return el.value;
    }
    if (tag === 'textarea') return el.value;
    if (tag === 'select' && r === 'combobox') return el.selectedOptions[0] ? squash(el.selectedOptions[0].text) : '';
    if (tag === 'progress' || tag === 'meter') return el.hasAttribute('value') || tag === 'meter' ? String(el.value) : '';
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return el.innerText.replace(/\n$/, '');
    const vn = el.getAttribute('aria-valuenow');
    if (vn !== null && (r === 'slider' || r === 'spinbutton' || r === 'progressbar' || r === 'meter' || r === 'scrollbar' || r === 'separator')) return el.getAttribute('aria-valuetext') || vn;
    return '';
  };

  // A label of a check box or radio button is not in the tree, nor is
  // its text: the control has it as its name (a person clicks the text
  // to toggle it). Other labels stay, their text with them.
  const togglesLabel = (el) => {
    const c = el.control;
    return !!c && c.localName === 'input' && (c.type === 'checkbox' || c.type === 'radio');
  };

  // Text in an editable region is editable (asked only where the page
  // has one).
  const anyEditable = doc.designMode === 'on' || doc.querySelector('[contenteditable]') !== null;
  let docFlags = F.focusable;
  if (!focusedEl || focusedEl === doc.body || focusedEl === doc.documentElement) docFlags |= F.focused;
  const root = emit(-1, 'RootWebArea', doc.title ? squash(doc.title) : '', '', '', docFlags, 0, 0);

  // walk emits n's nodes under parent; vis is whether n's parent is
  // visible (visibility), inLabel whether text here names a control.
  const nonSpace = /[^ \t\n\r\f]/;
  // Where the walk is on the current line of text, for the white space
  // layout drops: a collapsible space at the start of a line, after
  // another space, or at the end of a line is not rendered, and Chromium's
  // text nodes hold what is rendered. pending is the node whose text ends
  // in a space that a line's end would drop.
  // brk is the flow of the next piece at the start of a line: a line's,
  // a cell's, or an atomic inline element's own (0: a line's).
  const line = {start: true, space: false, pending: -1, brk: 0};
  const flowNow = () => line.start ? (line.brk || FLOW.line) : line.space ? FLOW.space : FLOW.run;
  let elFlow = 0; // the flow of the element walk hands to element
  const lineBreak = () => {
    if (line.pending >= 0) {
      const k = line.pending * 8 + 2;
      out[k] = out[k].replace(/ $/, '');
      names[line.pending] = out[k];
    }
    line.start = true;
    line.space = false;
    line.pending = -1;
  };
  const REPLACED = new Set(['img', 'input', 'select', 'textarea', 'button', 'iframe', 'frame', 'svg', 'canvas', 'video', 'audio', 'object', 'embed', 'meter', 'progress']);

  const text = (n, parent, st, hiddenText) => {
    const w = st ? st.whiteSpace : 'normal';
    const pre = w === 'pre' || w === 'pre-wrap' || w === 'break-spaces';
    if (!nonSpace.test(n.data)) {
      // White space only: layout, not text (the builder drops it).
      if (n.data && !pre && !line.start) line.space = true;
      else if (n.data && pre) { line.start = false; line.space = false; line.pending = -1; }
      return;
    }
    let s = textOf(n, st);
    const flow = flowNow();
    line.brk = 0;
    if (!pre && (line.start || line.space) && s.charCodeAt(0) === 32) s = s.slice(1);
    line.start = false;
    line.space = !pre && s.charCodeAt(s.length - 1) === 32;
    line.pending = -1;
    if (hiddenText || !st || st.visibility !== 'visible' || s === names[parent]) return;
    const i = emit(parent, 'StaticText', s, '', '', (anyEditable && n.parentElement && n.parentElement.isContentEditable ? F.editable : 0) | flow << FLOW.shift, 0, 0);
    if (line.space) line.pending = i;
  };

  // generated emits what a ::before or ::after adds (pseudoParts): a
  // pseudo-element is not an element a script can hold, so its nodes have
  // no handle.
  const generated = (parent, parts) => {
    if (!parts) return;
    for (const p of parts) {
      if (p === IMAGE) {
        emit(parent, 'image', '', '', '', 0, 0, 0);
        line.start = false;
        line.space = false;
        line.pending = -1;
        continue;
      }
      if (!p.trim()) continue;
      emit(parent, 'StaticText', p, '', '', flowNow() << FLOW.shift, 0, 0);
      line.brk = 0;
      line.start = false;
      line.space = p.endsWith(' ');
      line.pending = -1;
    }
  };

  // Reading after an element: until the walk reaches it, only its
  // ancestors in the flat tree are entered, and nothing is emitted.
  let skipping = !!after;
  const afterPath = new Set();
  for (let a = after; a; a = a.assignedSlot || (a.parentNode && a.parentNode.nodeType === 11 && a.parentNode.host ? a.parentNode.host : a.parentNode)) afterPath.add(a);
  const skip = (n, st) => {
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n === after) {
      skipping = false;
      // After an <iframe> is its frame, read on in (pagewalk.go), then
      // what follows it: the <iframe> is emitted to hold the frame.
      if (n.localName === 'iframe' || n.localName === 'frame') { walk(n, root, st, false); return; }
      const ast = style(n);
      if (ast.display === 'none') return;
      for (const c of kids(n)) walk(c, root, ast, false);
      return;
    }
    if (!afterPath.has(n)) return; // before it
    const nst = n.nodeType === 1 ? style(n) : st;
    for (const c of kids(n)) walk(c, root, nst, false);
  };

  const walk = (n, parent, st, hiddenText) => {
    if (skipping) { skip(n, st); return; }
    if (count >= budget) { cut = true; return; }
    if (n.nodeType === 3) { text(n, parent, st, hiddenText); return; }
    if (n.nodeType !== 1) {
      if (n.nodeType === 11) for (const c of n.childNodes) walk(c, parent, st, hiddenText);
      return;
    }
    const el = n;
    // An element of another namespace (SVG, MathML) is told by a tag of
    // its own: HTML's tags mean nothing there.
    const tag = el.namespaceURI === XHTML ? el.localName : '~' + el.localName;
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript' || tag === 'head' || tag === 'title' || tag === 'meta' || tag === 'link' ||
      tag === '~script' || tag === '~style' || tag === '~title' || tag === '~desc') return;
    const est = style(el);
    const d = est.display;
    if (d === 'none' && tag !== 'option' && tag !== 'optgroup') return;
    if (tag === 'br') { lineBreak(); line.brk = FLOW.line; }
    const block = !(d === 'inline' || d === 'contents' || d.startsWith('inline'));
    const atomic = !block && (d !== 'inline' && d !== 'contents' || REPLACED.has(tag));
    // A table's cells follow one another; any other block starts a line
    // (and a line break wins over a cell's).
    const brk = () => { line.brk = d === 'table-cell' && line.brk !== FLOW.line ? FLOW.cell : FLOW.line; };
    if (block) { lineBreak(); brk(); elFlow = line.brk; }
    else if (atomic) { elFlow = line.brk = flowNow(); line.pending = -1; line.start = true; line.space = false; }
    else elFlow = flowNow();
    element(el, tag, est, parent, hiddenText);
    if (block) { lineBreak(); brk(); }
    else if (atomic) { lineBreak(); line.start = false; line.brk = 0; }
  };

  // While a modal dialog is open, the rest of the page is inert.
  const modal = (() => { try { const m = doc.querySelectorAll('dialog:modal'); return m.length ? m[m.length - 1] : null; } catch (e) { return null; } })();
  const element = (el, tag, est, parent, hiddenText) => {
    elements++;
    if (hiddenByAria(el)) return;
    if (el.inert === true) return; // inert: out of the tree, as Chromium has it
    if (modal && el !== modal && !el.contains(modal) && !modal.contains(el) && el.getRootNode() === doc) return;
    // aria-disabled holds for what is inside too.
    const ad = el.getAttribute('aria-disabled') === 'true';
    if (ad) ariaDisabled++;
    try {
      element1(el, tag, est, parent, hiddenText);
    } finally {
      if (ad) ariaDisabled--;
    }
  };

  const element1 = (el, tag, est, parent, hiddenText) => {
    const flow = elFlow;
    if (est.display === 'contents' && !el.getAttribute('role')) {
      for (const c of kids(el)) walk(c, parent, est, hiddenText);
      return;
    }
    const visible = est.visibility === 'visible';
    let r = roleOf(el);
    const quiet = tag === 'label' && togglesLabel(el);
    if (quiet) r = null;
    if (tag === 'html' || tag === 'body') r = null;
    if (r === 'none') r = null;
    // Chromium makes an inline paragraph no paragraph.
    if (r === 'paragraph' && est.display === 'inline' && !el.getAttribute('role')) r = null;
    const sc = scripted.has(el) && tag !== 'html' && tag !== 'body' && tag !== 'label';
    let pointer = false;
    if (est.cursor === 'pointer' && !sc) {
      const pe = el.parentElement;
      pointer = !(pe && style(pe).cursor === 'pointer') && tag !== 'html' && tag !== 'body' && tag !== 'label';
    }
    const f0 = r ? flagsOf(el, r, est) : 0;
    if (!r && (sc || pointer || focusableEl(el, tag)) && tag !== 'html' && tag !== 'body' && tag !== 'label') r = 'generic';
    if (!r || !visible) {
      if (visible && tag !== 'html' && tag !== 'body') generated(parent, pseudoParts(el, '::before'));
      for (const c of kids(el)) walk(c, parent, est, hiddenText || quiet);
      if (visible && tag !== 'html' && tag !== 'body') generated(parent, pseudoParts(el, '::after'));
      return;
    }
    let flags = f0 || flagsOf(el, r, est);
    if (sc || pointer) flags |= F.clickable;
    flags |= flow << FLOW.shift;
    const [name, from] = nameOf(el, r);
    const desc = descOf(el, from);
    const value = valueOf(el, r);
    let level = 0;
    if (r === 'heading') {
      const al = parseInt(el.getAttribute('aria-level'), 10);
      level = al > 0 ? al : /^h[1-6]$/.test(tag) ? +tag[1] : 2;
    }
    const me = emit(parent, r, name, desc, value, flags, level, handle(el));
    if (tag === 'iframe' || tag === 'frame') return;
    if (tag === 'textarea' || tag === 'input') return;
    if (tag === 'select') {
      // Its options (and groups of them) as the list Chromium shows, even
      // while the popup is closed.
      const pop = r === 'combobox' ? emit(me, 'MenuListPopup', '', '', '', 0, 0, 0) : me;
      const option = (o, under) => { elements++; if (count >= budget) { cut = true; return; } emit(under, 'option', squash(o.label || o.text), '', '', F.focusable | (o.selected ? F.selected : 0) | (o.disabled || ariaDisabled > 0 ? F.disabled : 0), 0, handle(o)); };
      for (const c of el.children) {
        if (c.localName === 'option') option(c, pop);
        else if (c.localName === 'optgroup') {
          const g = emit(pop, 'group', squash(c.getAttribute('aria-label') || c.label || ''), '', '', c.disabled ? F.disabled : 0, 0, handle(c));
          for (const o of c.children) if (o.localName === 'option') option(o, g);
        }
      }
      return;
    }
    // content-visibility: hidden renders none of it (hidden=until-found
    // too); asked only of an element with something inside.
    if (el.firstChild && est.c.contentVisibility === 'hidden') return;
    generated(me, pseudoParts(el, '::before'));
    if (tag === 'details' && !el.open) {
      // A closed details renders its summary only.
      const sum = Array.from(el.children).find((c) => c.localName === 'summary');
      if (sum) walk(sum, me, est, hiddenText);
      return;
    }
    for (const c of kids(el)) walk(c, me, est, hiddenText);
    generated(me, pseudoParts(el, '::after'));
  };

  const top = doc.documentElement;
  if (top) walk(top, root, null, false);
  // What the budget left out: the document's elements the walk did not
  // reach (those of shadow trees are not counted).
  if (cut) left = Math.max(1, doc.getElementsByTagName('*').length - elements);
  return JSON.stringify({n: out, left, cut: cut ? lastEl : 0});
}
