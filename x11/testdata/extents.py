"""Prints the screen extents of named accessible nodes of one application.

An oracle for the x11 tests, independent of the code under test: it asks
the application itself, through AT-SPI (pyatspi), where its widgets are.

    extents.py PID NAME...   ->   {"NAME": [x, y, width, height], ...}

It waits (up to 20 s) until the application is on the AT-SPI desktop and
every name is found on a SHOWING node.
"""

import json
import sys
import time

import pyatspi


def find(app, names):
    found = {}
    stack = [app]
    seen = 0
    while stack and seen < 5000:
        node = stack.pop()
        seen += 1
        try:
            name = node.name
            if name in names and name not in found:
                states = node.getState()
                if states.contains(pyatspi.STATE_SHOWING):
                    ext = node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
                    if ext.width > 0 and ext.height > 0:
                        found[name] = [ext.x, ext.y, ext.width, ext.height]
            stack.extend(node[i] for i in range(node.childCount))
        except Exception:
            continue
    return found


def main():
    pid, names = int(sys.argv[1]), set(sys.argv[2:])
    deadline = time.time() + 20
    found = {}
    while time.time() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            try:
                if app is not None and app.get_process_id() == pid:
                    found = find(app, names)
            except Exception:
                pass
        if set(found) == names:
            json.dump(found, sys.stdout)
            return 0
        time.sleep(0.1)
    sys.stderr.write("extents.py: found only %r of %r\n" % (sorted(found), sorted(names)))
    return 1


if __name__ == "__main__":
    sys.exit(main())
