// Package chromeflags holds the Chromium flags every browser we start gets,
// whoever starts it (cdp's launcher, test stand-ins): the network here is
// closed, so everything that phones home is off, and nothing needs a GPU,
// a keyring or a crash reporter.
package chromeflags

// Quiet returns a fresh copy of the flags, for the caller to append to. It
// holds no DevTools flag: how CDP is reached (a pipe, a port) is the
// starter's choice.
func Quiet() []string {
	return []string{
		"--disable-gpu",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-quic",
		"--disable-breakpad",
		"--disable-crash-reporter",
		"--password-store=basic",
	}
}
