// Package daemoncall is what the vibespace command lines share to talk to
// the daemon: reach it (starting it when none answers), send one request,
// print the answer as text or JSON, and map it to an exit code (0 done, 1
// refused, 2 bad usage or internal). It also holds the serve command both
// binaries run the one daemon with, and the argument reordering that lets
// flags follow positionals.
package daemoncall
