package kind

// AppRunner is what a Browser may also do: run a profile's browser as a
// desktop app (new <label> --backend desktop-app), a real headed program
// started as a window of a display, with its own user-data-dir and its
// accessibility on, and no DevTools (package daemon/chromium's Pool is
// one). The core opens it as open opens any window, on AppDisplay, and
// records the window as the profile's; what the program is and how it is
// started are the runner's.
type AppRunner interface {
	// AppDisplay names the display (a DisplayProvider's Name) a desktop
	// app opens on.
	AppDisplay() string
	// CheckApp checks what new asks of a desktop app, before anything is
	// registered or started: its address (url, "" none) and its window's
	// size (size, "WxH" in pixels, "" none). It answers them read, or a
	// refusal naming what is wrong.
	CheckApp(url, size string) (App, error)
	// AppArgv is the command line of a desktop app whose user-data-dir is
	// dir.
	AppArgv(dir string, app App) []string
	// AppURL is the address app opens (its own, else the runner's blank
	// page), for answers.
	AppURL(app App) string
}

// App is how a desktop app starts: the address it opens ("" a blank
// page) and its window's size in pixels (0 by 0: the program's own
// choice).
type App struct {
	URL           string
	Width, Height int
}
