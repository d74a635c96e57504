// The measuring instrument, shared by the content page (which draws) and
// the viewer page (which decodes). A frame carries, in page pixels from the
// top-left of a magenta marker square:
//   marker  MARK×MARK magenta at (0, 0): found by a scan, so the cells are
//           located in any picture (a window with browser chrome, a tab);
//   cells   ROWS×COLS black/white squares of CELL px at (MARK+8, 0): 48
//           bits, most significant first, of Date.now() at paint time (44
//           bits) and the count of inputs the page has seen, modulo 16 (4
//           bits); then an 8-bit check of those 6 bytes;
//   block   BLOCK px square at (MARK+8, ROWS*CELL+8): black or white, the
//           parity of that count (for the eye: the decoder reads the count).
'use strict';
const LB = (() => {
  const MARK = 40, CELL = 20, COLS = 28, ROWS = 2, BLOCK = 40, GAP = 8;
  const CX = MARK + GAP, BY = ROWS * CELL + GAP;
  const W = CX + COLS * CELL, H = BY + BLOCK; // the region to read
  const TS_LIMIT = 2 ** 44;

  function bytesOf(ts) { // 6 bytes, big endian, of a non-negative integer < 2^48
    const out = [];
    let v = Math.floor(ts);
    for (let i = 0; i < 6; i++) { out.unshift(v % 256); v = Math.floor(v / 256); }
    return out;
  }
  function check(bytes) {
    let s = 0x5a;
    for (const b of bytes) s = (s * 31 + b + 7) % 256;
    return s;
  }
  function bits(ts, inputs) {
    const by = bytesOf(Math.floor(ts) % TS_LIMIT * 16 + ((inputs || 0) % 16));
    by.push(check(by));
    const out = [];
    for (const b of by) for (let i = 7; i >= 0; i--) out.push((b >> i) & 1);
    return out; // 56 = ROWS*COLS
  }

  // draw paints marker, cells and block at (x, y) of a 2D context.
  function draw(ctx, x, y, ts, inputs) {
    ctx.fillStyle = '#ff00ff';
    ctx.fillRect(x, y, MARK, MARK);
    const bs = bits(ts, inputs);
    for (let i = 0; i < bs.length; i++) {
      ctx.fillStyle = bs[i] ? '#ffffff' : '#000000';
      ctx.fillRect(x + CX + (i % COLS) * CELL, y + Math.floor(i / COLS) * CELL, CELL, CELL);
    }
    ctx.fillStyle = inputs % 2 ? '#ffffff' : '#000000';
    ctx.fillRect(x + CX, y + BY, BLOCK, BLOCK);
  }

  function magenta(d, i) { return d[i] > 180 && d[i + 1] < 90 && d[i + 2] > 180; }

  // find scans an ImageData for the marker: its top-left, or null. The
  // point must open a magenta square (its far corner's inside is magenta
  // too), so a stray pixel is not taken for it.
  function find(img) {
    const d = img.data, w = img.width, h = img.height;
    for (let y = 0; y + MARK <= h; y++) {
      for (let x = 0; x + MARK <= w; x++) {
        const i = (y * w + x) * 4;
        if (!magenta(d, i)) continue;
        const j = ((y + MARK - 4) * w + x + MARK - 4) * 4, k = ((y + 4) * w + x + MARK - 4) * 4, l = ((y + MARK - 4) * w + x + 4) * 4;
        if (magenta(d, j) && magenta(d, k) && magenta(d, l)) return {x, y};
      }
    }
    return null;
  }

  // luma averages a 6×6 patch centred on (cx, cy) of an ImageData.
  function luma(img, cx, cy) {
    const d = img.data, w = img.width;
    let s = 0;
    for (let y = cy - 3; y < cy + 3; y++) for (let x = cx - 3; x < cx + 3; x++) {
      const i = (y * w + x) * 4;
      s += 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
    }
    return s / 36;
  }

  // decode reads the region (an ImageData of at least W×H whose top-left is
  // the marker's): {ts, inputs, block}, or null when the check fails.
  function decode(img) {
    const by = [];
    let b = 0;
    for (let i = 0; i < ROWS * COLS; i++) {
      const cx = CX + (i % COLS) * CELL + CELL / 2, cy = Math.floor(i / COLS) * CELL + CELL / 2;
      b = b * 2 + (luma(img, cx, cy) > 128 ? 1 : 0);
      if (i % 8 === 7) { by.push(b); b = 0; }
    }
    const c = by.pop();
    if (check(by) !== c) return null;
    let v = 0;
    for (const x of by) v = v * 256 + x;
    return {ts: Math.floor(v / 16), inputs: v % 16, block: luma(img, CX + BLOCK / 2, BY + BLOCK / 2) > 128 ? 1 : 0};
  }

  return {MARK, CELL, COLS, ROWS, BLOCK, CX, BY, W, H, TS_LIMIT, bits, draw, find, decode};
})();
