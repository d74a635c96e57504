"""The peer: a straight pyatspi walk of one window of one application.

Run with /usr/bin/python3 (Debian's python3-pyatspi) in the desktop's
environment:

  pyatspi_walk.py tree PID FRAME_INDEX
      one line per node, depth first in child order: depth<TAB>role<TAB>name
  pyatspi_walk.py bench PID FRAME_INDEX RUNS
      RUNS walks reading role, name, description, states, interfaces,
      screen extents, action names and up to 200 characters of text (the
      fields atspi.Walk reads); prints "nodes ms" per walk, timed inside
      this process (the process and its registry connection stay warm).
  pyatspi_walk.py dogtail PID FRAME_INDEX RUNS
      RUNS of dogtail's plain dump of the same window (dogtail.dump.plain:
      roleName, name and actions of every node), timed the same way.
  pyatspi_walk.py serve PID FRAME_INDEX
      one walk per line on stdin ("pyatspi" or "dogtail"), answering
      "count ms": the benchmark interleaves these with its own walks.

The application is found by PID on the registry's desktop (the one with
the frame when a process owns several). Exit status 3: not found yet.
"""
import sys
import time

import pyatspi
from gi.repository import Atspi


def find_app(pid):
    desktop = pyatspi.Registry.getDesktop(0)
    best = None
    for app in desktop:
        if app is None:
            continue
        try:
            if app.get_process_id() != pid:
                continue
        except Exception:
            continue
        if best is None or app.childCount > best.childCount:
            best = app
    return best


def tree(node, depth, out):
    out.append("%d\t%s\t%s" % (depth, Atspi.role_get_name(node.getRole()), node.name or ""))
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            tree(child, depth + 1, out)


def full(node):
    n = 1
    node.getRole()
    node.name
    node.description
    node.getState()
    ifaces = pyatspi.listInterfaces(node)
    if "Component" in ifaces:
        node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    if "Action" in ifaces:
        act = node.queryAction()
        for i in range(act.nActions):
            act.getName(i)
    if "Text" in ifaces:
        text = node.queryText()
        text.getText(0, min(text.characterCount, 200))
    for i in range(node.childCount):
        child = node.getChildAtIndex(i)
        if child is not None:
            n += full(child)
    return n


def dogtail_dump():
    """Returns a function that runs dogtail's plain dump of a node and
    returns the number of lines it wrote."""
    import os
    # dogtail refuses to start unless it believes accessibility is on; the
    # apps here have it on (GTK3's bridge is built in).
    os.environ["GTK_MODULES"] = "gail:atk-bridge"
    from dogtail.config import config
    config.logDebugToFile = False
    config.logDebugToStdOut = False
    from dogtail import dump
    import dogtail.tree  # noqa: F401  (makes every accessible a dogtail Node)

    class Lines:
        def __init__(self):
            self.n = 0

        def write(self, s):
            self.n += 1

    def run(node):
        out = Lines()
        dump.plain(node, output=out)
        return out.n

    return run


def main():
    mode, pid, index = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    app = find_app(pid)
    if app is None or index >= app.childCount:
        sys.exit(3)
    frame = app.getChildAtIndex(index)
    if mode == "tree":
        out = []
        tree(frame, 0, out)
        sys.stdout.write("\n".join(out) + "\n")
    elif mode == "bench":
        for _ in range(int(sys.argv[4])):
            t0 = time.perf_counter()
            n = full(frame)
            print(n, (time.perf_counter() - t0) * 1000.0, flush=True)
    elif mode == "serve":
        # One walk per line read: "pyatspi" (the fields of bench mode) or
        # "dogtail" (its plain dump); answers "count ms". Lets the caller
        # interleave the peers' walks with its own, under the same load.
        dump = dogtail_dump()
        for line in sys.stdin:
            t0 = time.perf_counter()
            if line.strip() == "dogtail":
                n = dump(frame)
            else:
                n = full(frame)
            print(n, (time.perf_counter() - t0) * 1000.0, flush=True)
    elif mode == "dogtail":
        dump = dogtail_dump()
        for _ in range(int(sys.argv[4])):
            t0 = time.perf_counter()
            n = dump(frame)
            print(n, (time.perf_counter() - t0) * 1000.0, flush=True)
    else:
        sys.exit("unknown mode " + mode)


main()
