"""A window with one list box that takes several rows (GTK 3's
SelectionMode.MULTIPLE), logging the rows it holds each time they change:

    {"type": "held", "widget": "fruit", "text": "Banana,Cherry"}

Usage: multilist.py --log PATH (the fixture's log format, fixturelog.py).
"""

import argparse
import os
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import GdkX11, Gtk  # noqa: E402,F401  (GdkX11 makes get_xid work)

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "testenv", "fixture"))
from fixturelog import Log  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    log = Log(p.parse_args().log)
    win = Gtk.Window(title="Multi list")
    box = Gtk.ListBox()
    box.set_selection_mode(Gtk.SelectionMode.MULTIPLE)
    box.get_accessible().set_name("Fruit")
    for name in ("Apple", "Banana", "Cherry"):
        row = Gtk.ListBoxRow()
        row.add(Gtk.Label(label=name, xalign=0))
        row.get_accessible().set_name(name)
        box.add(row)

    def held(b):
        names = [r.get_child().get_text() for r in b.get_selected_rows()]
        log.event("held", widget="fruit", text=",".join(sorted(names)))

    box.connect("selected-rows-changed", held)
    win.add(box)
    win.connect("destroy", Gtk.main_quit)
    ready = []

    def mapped(w, _e):
        if not ready:
            ready.append(True)
            log.event("ready", xid=w.get_window().get_xid(), pid=os.getpid())
        return False

    win.connect("map-event", mapped)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
