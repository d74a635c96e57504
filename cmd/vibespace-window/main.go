// Command vibespace-window drives native Linux windows for an agent: open an
// application on a private display, read its accessibility tree, click,
// type, press keys, take screenshots — under a lease, with typed refusals.
// Run "vibespace-window help" for the whole manual.
//
//go:debug updatemaxprocs=0
package main

import (
	"github.com/vibespace/vibespace/cmd/internal/daemoncall"
	"github.com/vibespace/vibespace/cmd/vibespace-window/internal/app"
)

func main() { daemoncall.Main(app.Run) }
