// Command vibespace-browser drives Chromium tabs for an agent: open a page,
// read its accessibility tree with @refs, click, fill, type, press keys,
// take screenshots — in its own browser context or a named profile, under a
// lease, with typed refusals. It talks to the same daemon as
// vibespace-window. Run "vibespace-browser help" for the whole manual.
//
//go:debug updatemaxprocs=0
package main

import (
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/cmd/vibespace-browser/internal/app"
)

func main() { daemoncall.Main(app.Run) }
