#!/usr/bin/python3
"""vibespace load probe: sessions driving windows and tabs at once, through
the command lines, as agents would.

Two sessions each drive a window of the fixture app (testenv/fixture) and
four sessions each drive a tab of their own, every session calling its verbs
back to back for --seconds. It prints, per command line and verb, the number
of calls, p50 / p95 / max in ms, and the refusals and errors by code; and
the daemon's RSS and open descriptors at the start and the end.

    python3 bench/load.py --bin bin --seconds 120

It runs its own daemon in a fresh state directory (VIBESPACE_HOME) and
stops it at the end, with everything it started.
"""

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "testenv", "fixture", "fixture.py")
PAGE = ("data:text/html,<title>load</title><input id=i aria-label=Name>"
        "<button onclick=\"this.textContent='clicked'\">Press</button>"
        "<p style=height:2000px>tall</p>")
CODE = re.compile(r"\[([a-z_]+)\]\s*$", re.M)


class Probe:
    def __init__(self, bindir, home):
        self.bin = bindir
        self.env = dict(os.environ, VIBESPACE_HOME=home, XDG_RUNTIME_DIR=os.path.join(home, "run"))
        os.makedirs(self.env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        self.lock = threading.Lock()
        self.calls = []  # (cli, verb, ms, outcome)

    def run(self, session, cli, *args, record=True, timeout=60):
        env = dict(self.env, VIBESPACE_SESSION=session)
        t0 = time.monotonic()
        try:
            p = subprocess.run([os.path.join(self.bin, cli), *args], env=env, capture_output=True,
                               text=True, timeout=timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = -1, "", "probe timeout"
        ms = (time.monotonic() - t0) * 1000
        if rc == 0:
            outcome = "ok"
        else:
            m = CODE.search(err)
            outcome = m.group(1) if m and rc == 1 else "exit%d:%s" % (rc, err.strip().splitlines()[-1][:60] if err.strip() else "")
        if record:
            with self.lock:
                self.calls.append((cli.replace("vibespace-", ""), args[0], ms, outcome))
        return rc, out, err


def ref_of(snapshot, role, name):
    for line in snapshot.splitlines():
        if role in line and '"%s"' % name in line:
            m = re.search(r"@e\d+", line)
            if m:
                return m.group(0)
    return None


def window_session(p, s, stop, logdir):
    rc, out, err = p.run(s, "vibespace-window", "--json", "open", "/usr/bin/python3", FIXTURE,
                         "--log", os.path.join(logdir, s + ".jsonl"), record=False)
    if rc != 0:
        sys.exit("open a window for %s: %s %s" % (s, out, err))
    win = json.loads(out)["target"]["id"]
    snap = p.run(s, "vibespace-window", "snapshot", win, "-i", record=False)[1]
    entry = ref_of(snap, "text", "Name")
    verbs = [
        ("snapshot", win, "-i"), ("key", win, "Tab"), ("type", win, "abcdefgh"),
        ("screenshot", win, "--out", os.path.join(logdir, s + ".png")),
        ("click", win, "--at", "20,20"), ("scroll", win, "down"),
    ]
    if entry:
        verbs.append(("type", win, entry, "hello"))
    i = 0
    while not stop.is_set():
        p.run(s, "vibespace-window", *verbs[i % len(verbs)])
        i += 1


def tab_session(p, s, stop, logdir):
    rc, out, err = p.run(s, "vibespace-browser", "open", PAGE, record=False)
    if rc != 0:
        sys.exit("open a tab for %s: %s %s" % (s, out, err))
    snap = p.run(s, "vibespace-browser", "snapshot", "-i", record=False)[1]
    button, field = ref_of(snap, "button", "Press"), ref_of(snap, "entry", "Name")
    if not button or not field:
        sys.exit("the tab's snapshot of %s has no button or field:\n%s" % (s, snap))
    verbs = [("snapshot", "-i"), ("click", button), ("fill", field, "hello"), ("type", "abc"),
             ("key", "Tab"), ("screenshot", "--out", os.path.join(logdir, s + ".png")), ("get", "title"),
             ("scroll", "down")]
    i = 0
    while not stop.is_set():
        p.run(s, "vibespace-browser", *verbs[i % len(verbs)])
        i += 1


def daemon_facts(pid):
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
    return rss, len(os.listdir("/proc/%d/fd" % pid))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "bin"))
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--json", help="also write the calls to this file")
    a = ap.parse_args()
    home = tempfile.mkdtemp(prefix="vibespace-load-")
    p = Probe(os.path.abspath(a.bin), home)
    rc, out, err = p.run("probe", "vibespace-window", "--json", "status", record=False)
    pid = json.loads(out)["status"]["pid"]
    stop = threading.Event()
    sessions = [threading.Thread(target=window_session, args=(p, "w%d" % i, stop, home)) for i in (1, 2)]
    sessions += [threading.Thread(target=tab_session, args=(p, "t%d" % i, stop, home)) for i in (1, 2, 3, 4)]
    try:
        for t in sessions:
            t.start()
        time.sleep(3)
        rss0, fds0 = daemon_facts(pid)
        with p.lock:
            p.calls.clear()  # the start (opens, first snapshots) is not the load
        time.sleep(a.seconds)
        rss1, fds1 = daemon_facts(pid)
    finally:
        stop.set()
        for t in sessions:
            t.join()
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):
            if not os.path.exists("/proc/%d" % pid):
                break
            time.sleep(0.05)
    calls = p.calls
    if a.json:
        with open(a.json, "w") as f:
            json.dump(calls, f)
    by = {}
    for cli, verb, ms, outcome in calls:
        by.setdefault((cli, verb), []).append((ms, outcome))
    print("%d calls in %.0f s; daemon RSS %d → %d MB, fds %d → %d" % (len(calls), a.seconds, rss0, rss1, fds0, fds1))
    print("%-8s %-11s %6s %7s %7s %7s  %s" % ("cli", "verb", "n", "p50", "p95", "max", "outcomes"))
    for (cli, verb), rs in sorted(by.items()):
        ms = [r[0] for r in rs]
        outs = {}
        for _, o in rs:
            outs[o] = outs.get(o, 0) + 1
        print("%-8s %-11s %6d %7.0f %7.0f %7.0f  %s" % (cli, verb, len(rs), statistics.median(ms), pct(ms, 0.95), max(ms),
              " ".join("%s=%d" % kv for kv in sorted(outs.items()))))


if __name__ == "__main__":
    main()
