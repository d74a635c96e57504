// ariasnapshot.mjs: Playwright's ariaSnapshot of one page, warm, timed, for
// the rows benchmark (cmd/vibespace-browser/rows_bench_test.go). It uses
// playwright-core from the bench-only folder .bench (make bench-deps) and
// drives the system Chromium (no browser download).
//
//   node bench/ariasnapshot.mjs [--chromium PATH] [--args a,b,...] [--times K]
//       [--cap-ms MS] [--warm-cap-ms MS] [--first TEXT] [--last TEXT] URL
//
// It launches Chromium headless (PATH, else $CHROMIUM, else
// /usr/bin/chromium; --args are extra browser flags), opens URL and takes
// one warm-up page.ariaSnapshot(), untimed. The load and the warm-up are
// bounded by --warm-cap-ms (default three times the cap: the first snapshot
// of a big page takes tens of seconds), every timed snapshot by --cap-ms
// (default 60000). Then:
//
//   --times K: times K snapshots and prints one JSON line,
//     {"ms":[...],"bytes":B,"lines":L,"warmup_ms":W}, and exits.
//   otherwise: prints {"ready":true,"bytes":B,"lines":L,"warmup_ms":W,"first":F}
//     and takes one timed snapshot per line read on stdin, printing
//     {"ms":X,"bytes":B,"last":T} (or {"timeout":true,"error":"..."} when it
//     took longer than the cap) for each; it closes the browser and exits at
//     the end of stdin. The benchmark drives it that way, so Playwright's
//     calls interleave with the other tools'. A load or warm-up that ran out
//     of time prints {"ready":false,"timeout":true,"error":"..."} instead.
//
// first and last say whether the snapshot holds --first and --last (the
// page's first and last rows' text).
//
// The browser is closed in a finally whatever happens; Playwright also
// closes it on SIGINT, SIGTERM and SIGHUP (its launch defaults).
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';

const require = createRequire(new URL('../.bench/package.json', import.meta.url));
const { chromium } = require('playwright-core');

function parse(argv) {
  const o = {
    chromium: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [],
    times: 0,
    capMs: 60000,
    warmCapMs: 0,
    first: '',
    last: '',
    url: '',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--chromium') o.chromium = next();
    else if (a === '--args') o.args = next().split(',').filter(Boolean);
    else if (a === '--times') o.times = Number(next());
    else if (a === '--cap-ms') o.capMs = Number(next());
    else if (a === '--warm-cap-ms') o.warmCapMs = Number(next());
    else if (a === '--first') o.first = next();
    else if (a === '--last') o.last = next();
    else if (a.startsWith('--')) throw new Error(`unknown flag ${a}`);
    else o.url = a;
  }
  if (!o.url) throw new Error('no URL given');
  if (!o.warmCapMs) o.warmCapMs = 3 * o.capMs;
  return o;
}

function print(v) {
  process.stdout.write(JSON.stringify(v) + '\n');
}

const isTimeout = (err) => err && err.name === 'TimeoutError';
const firstLine = (err) => String((err && err.message) || err).split('\n')[0];

async function main() {
  const o = parse(process.argv.slice(2));
  const browser = await chromium.launch({ executablePath: o.chromium, headless: true, args: o.args });
  try {
    const page = await browser.newPage();
    let t0, warm, warmupMs;
    try {
      await page.goto(o.url, { waitUntil: 'load', timeout: o.warmCapMs });
      t0 = performance.now();
      warm = await page.ariaSnapshot({ timeout: o.warmCapMs });
      warmupMs = performance.now() - t0;
    } catch (err) {
      if (!isTimeout(err)) throw err;
      print({ ready: false, timeout: true, error: firstLine(err) });
      return;
    }
    const snap = () => page.ariaSnapshot({ timeout: o.capMs });
    const bytes = Buffer.byteLength(warm);
    const lines = warm.split('\n').length;
    if (o.times > 0) {
      const ms = [];
      for (let i = 0; i < o.times; i++) {
        t0 = performance.now();
        await snap();
        ms.push(performance.now() - t0);
      }
      print({ ms, bytes, lines, warmup_ms: warmupMs });
      return;
    }
    print({ ready: true, bytes, lines, warmup_ms: warmupMs, first: warm.includes(o.first) });
    const rl = createInterface({ input: process.stdin, terminal: false });
    for await (const _ of rl) {
      t0 = performance.now();
      try {
        const s = await snap();
        const ms = performance.now() - t0;
        print({ ms, bytes: Buffer.byteLength(s), last: s.includes(o.last) });
      } catch (err) {
        if (!isTimeout(err)) throw err;
        print({ timeout: true, error: firstLine(err) });
      }
    }
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  process.stderr.write(`ariasnapshot: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
});
