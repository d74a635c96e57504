module github.com/vibespace/vibespace

go 1.26

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/godbus/dbus/v5 v5.2.4 // indirect
	github.com/jezek/xgb v1.1.1 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/urfave/cli/v2 v2.27.7 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	golang.org/x/sys v0.27.0 // indirect
)
