// Package daemoncall is what the vibespace command lines share to talk to
// the daemon: reach it (starting it when none answers), send one request,
// print the answer as text or JSON, and map it to an exit code (0 done, 1
// refused, 2 bad usage or internal). It also holds the serve command both
// binaries hand over to the daemon's own program (vibespace-daemon, found
// beside them) and the argument reordering that lets flags follow
// positionals. It links only the daemon's wire protocol (daemon/wire),
// never the daemon or its backends, so that a command stays small and
// quick to start.
package daemoncall
