package app

// key set|clear|list: a cloud provider's key, kept by the daemon. The key
// is read from stdin (a terminal prompt does not echo it), never from argv
// or the environment, where ps, shell history and an agent's environment
// would show it; no answer ever carries it.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"unsafe"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/wire"
)

// maxKeyRead bounds what key set reads from stdin: more than the daemon
// takes (4096 bytes), so an over-long key is refused by it, with the bound.
const maxKeyRead = 8 << 10

func keyStoreCommands(o Options) []*cli.Command {
	return []*cli.Command{
		{
			Name: "set", Usage: "store a provider's key, read from stdin (a terminal prompts without echo): key set cloud:browserless < keyfile",
			ArgsUsage: "<provider>", Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					// The extra word may be the key itself: never repeat it.
					return usage("key set takes the provider only and reads the key from stdin, never from the command line (ps and shell history would keep it): vibespace-browser key set %s < keyfile, or type it at the prompt", providerArg(c))
				}
				if c.NArg() == 0 {
					return usage("key set needs a provider: key set cloud:browserless (the key is read from stdin)")
				}
				p := c.Args().First()
				secret, err := readKey(o, p)
				if err != nil {
					return err
				}
				return ask(c, o, args.Request("key.set", "", args.KeySet{Provider: p, Secret: secret}), printKeys)
			},
		},
		{
			Name: "clear", Usage: "forget a provider's key", ArgsUsage: "<provider>", Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return usage("key clear needs one provider: key clear cloud:browserless")
				}
				return ask(c, o, args.Request("key.clear", "", args.KeyNamed{Provider: c.Args().First()}), printKeys)
			},
		},
		{
			Name: "list", Usage: "which providers have a key set, and since when (never the key)", Flags: []cli.Flag{jsonFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usage("key list takes no arguments")
				}
				return ask(c, o, wire.Request{Verb: "key.list"}, printKeys)
			},
		},
	}
}

// providerArg is the first argument when it looks like a provider's name,
// for a message; a word that may be a key is never repeated.
func providerArg(c *cli.Context) string {
	if p := c.Args().First(); strings.HasPrefix(p, "cloud:") && len(p) < 40 {
		return p
	}
	return "<provider>"
}

// readKey reads the key: at a terminal, one line without echo after a
// prompt on stderr; otherwise all of stdin, one trailing newline dropped.
func readKey(o Options, provider string) (string, error) {
	in := o.Stdin
	if in == nil {
		return "", usage("key set reads the key from stdin, and there is none")
	}
	if f, ok := in.(*os.File); ok {
		if restore, ok := noEcho(f); ok {
			fmt.Fprintf(o.Stderr, "key for %s (not shown): ", provider)
			line, err := bufio.NewReader(io.LimitReader(f, maxKeyRead)).ReadString('\n')
			restore()
			fmt.Fprintln(o.Stderr)
			if err != nil && err != io.EOF {
				return "", usage("key set: reading the key: %v", err)
			}
			return strings.TrimRight(line, "\r\n"), nil
		}
	}
	b, err := io.ReadAll(io.LimitReader(in, maxKeyRead))
	if err != nil {
		return "", usage("key set: reading the key from stdin: %v", err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	s = strings.TrimSuffix(s, "\r")
	if s == "" {
		return "", usage("key set read no key from stdin: vibespace-browser key set %s < keyfile, or run it at a terminal to be prompted", provider)
	}
	return s, nil
}

// noEcho turns the terminal's echo off when f is a terminal; restore puts
// it back.
func noEcho(f *os.File) (restore func(), ok bool) {
	fd := f.Fd()
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return nil, false
	}
	old := t
	t.Lflag &^= syscall.ECHO
	t.Lflag |= syscall.ICANON
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return nil, false
	}
	return func() {
		syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&old)))
	}, true
}

// printKeys prints key list's rows (and key set's, key clear's after their
// line): the provider, set or not, since when. Never a key.
func printKeys(r wire.Response, w io.Writer) error {
	for _, k := range r.Keys {
		if k.Set {
			fmt.Fprintf(w, "%s\tset\t%s\n", k.Provider, k.SetAt)
		} else {
			fmt.Fprintf(w, "%s\tnot set\n", k.Provider)
		}
	}
	return nil
}
