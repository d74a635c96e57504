package daemoncall

// key set|clear|list, both command lines' words: a cloud provider's key,
// or a secret an agent types by name (secret:NAME; type or fill --secret
// NAME), kept by the daemon. The value is read from stdin (a terminal
// prompt does not echo it), never from argv or the environment, where ps,
// shell history and an agent's environment would show it; no answer ever
// carries it.

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

// KeyAsk sends a key word's request and prints its answer with body.
type KeyAsk func(c *cli.Context, req wire.Request, body Body) error

// maxKeyRead bounds what key set reads from stdin: more than the daemon
// takes (4096 bytes), so an over-long key is refused by it, with the bound.
const maxKeyRead = 8 << 10

// KeyStoreCommands are key set, clear and list, each asked through ask.
func KeyStoreCommands(o Options, ask KeyAsk) []*cli.Command {
	return []*cli.Command{
		{
			Name: "set", Usage: "store a provider's key, or a secret agents type by name (secret:NAME), read from stdin (a terminal prompts without echo): key set cloud:browserless < keyfile",
			ArgsUsage: "<provider>", Flags: []cli.Flag{JSONFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					// The extra word may be the key itself: never repeat it.
					return Usage("key set takes the provider (or secret:NAME) only and reads the key from stdin, never from the command line (ps and shell history would keep it): %s key set %s < keyfile, or type it at the prompt", o.Name, providerArg(c))
				}
				if c.NArg() == 0 {
					return Usage("key set needs a provider or a secret's name: key set cloud:browserless, key set secret:NAME (the value is read from stdin)")
				}
				p := c.Args().First()
				secret, err := readKey(o, p)
				if err != nil {
					return err
				}
				return ask(c, args.Request("key.set", "", args.KeySet{Provider: p, Secret: secret}), printKeys)
			},
		},
		{
			Name: "clear", Usage: "forget a provider's key", ArgsUsage: "<provider>", Flags: []cli.Flag{JSONFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return Usage("key clear needs one provider: key clear cloud:browserless")
				}
				return ask(c, args.Request("key.clear", "", args.KeyNamed{Provider: c.Args().First()}), printKeys)
			},
		},
		{
			Name: "list", Usage: "which providers have a key set, and since when (never the key); key list secret:NAME says whether that secret is kept", Flags: []cli.Flag{JSONFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() > 1 {
					return Usage("key list takes at most one provider or secret:NAME")
				}
				return ask(c, args.Request("key.list", "", args.KeyNamed{Provider: c.Args().First()}), printKeys)
			},
		},
	}
}

// providerArg is the first argument when it looks like a provider's name,
// for a message; a word that may be a key is never repeated.
func providerArg(c *cli.Context) string {
	if p := c.Args().First(); (strings.HasPrefix(p, "cloud:") || strings.HasPrefix(p, args.SecretPrefix)) && len(p) < 72 {
		return p
	}
	return "<provider>"
}

// readKey reads the key: at a terminal, one line without echo after a
// prompt on stderr; otherwise all of stdin, one trailing newline dropped.
func readKey(o Options, provider string) (string, error) {
	in := o.Stdin
	if in == nil {
		return "", Usage("key set reads the key from stdin, and there is none")
	}
	if f, ok := in.(*os.File); ok {
		if restore, ok := noEcho(f); ok {
			fmt.Fprintf(o.Stderr, "key for %s (not shown): ", provider)
			line, err := bufio.NewReader(io.LimitReader(f, maxKeyRead)).ReadString('\n')
			restore()
			fmt.Fprintln(o.Stderr)
			if err != nil && err != io.EOF {
				return "", Usage("key set: reading the key: %v", err)
			}
			return strings.TrimRight(line, "\r\n"), nil
		}
	}
	b, err := io.ReadAll(io.LimitReader(in, maxKeyRead))
	if err != nil {
		return "", Usage("key set: reading the key from stdin: %v", err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	s = strings.TrimSuffix(s, "\r")
	if s == "" {
		return "", Usage("key set read no key from stdin: %s key set %s < keyfile, or run it at a terminal to be prompted", o.Name, provider)
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
