package daemoncall

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// Reorder moves a command's flags in front of its positional arguments, so
// that "click win:1 --at 5,5" parses as agents write it (urfave/cli/v2 stops
// at the first positional). A global flag written after the command (one
// the command does not have itself, such as --profile) moves in front of
// the command. Everything after "--" stays positional.
func Reorder(a *cli.App, args []string) []string {
	global := flagSet(a.Flags)
	i := commandAt(global, args)
	if i < 0 {
		return args
	}
	cmd := a.Command(args[i])
	if cmd == nil {
		return args
	}
	own := flagSet(cmd.Flags)
	// urfave's own help flag is not among cmd.Flags.
	own.isFlag["help"], own.isFlag["h"] = true, true
	rest := args[i+1:]
	var lifted, flags, pos []string
	for j := 0; j < len(rest); j++ {
		s := rest[j]
		if s == "--" {
			pos = append(pos, rest[j:]...)
			break
		}
		name, _, hasEq := strings.Cut(strings.TrimLeft(s, "-"), "=")
		set, to := own, &flags
		if !own.isFlag[name] && global.isFlag[name] {
			set, to = global, &lifted
		}
		if strings.HasPrefix(s, "-") && set.isFlag[name] {
			*to = append(*to, s)
			if set.takesValue[name] && !hasEq && j+1 < len(rest) {
				*to = append(*to, rest[j+1])
				j++
			}
			continue
		}
		pos = append(pos, s)
	}
	out := append([]string{}, args[:i]...)
	out = append(out, lifted...)
	out = append(out, args[i])
	out = append(out, flags...)
	if len(pos) == 0 {
		return out
	}
	// Our own "--" ends the flags, so a positional that looks like a flag
	// ("-5", "-x") stays positional; the user's "--", if any, is dropped.
	out = append(out, "--")
	for k, p := range pos {
		if p == "--" {
			return append(out, append(pos[:k:k], pos[k+1:]...)...)
		}
	}
	return append(out, pos...)
}

// commandAt is the index in args of the command's word: the first
// argument after the global flags (and their values), or -1.
func commandAt(global flags, args []string) int {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		name, _, hasEq := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if global.takesValue[name] && !hasEq {
			i++
		}
		i++
	}
	if i >= len(args) {
		return -1
	}
	return i
}

// KeepOnlyCommand leaves in a the one command args (as Reorder leaves
// them) name: urfave/cli sets every command of an app up (its help name,
// its flag categories) on every run, and one run runs one command. The
// app's help and a misspelt command (which lists suggestions) keep them
// all; so does any run that asks for help, as a precaution (urfave/cli
// answers "--help open" with open's own help today).
func KeepOnlyCommand(a *cli.App, args []string) {
	if len(args) < 2 {
		return
	}
	for _, s := range args[1:] {
		switch s {
		case "-h", "--help", "help", "--generate-bash-completion":
			return
		}
	}
	i := commandAt(flagSet(a.Flags), args)
	if i < 0 {
		return
	}
	if cmd := a.Command(args[i]); cmd != nil {
		a.Commands = []*cli.Command{cmd}
	}
}

type flags struct{ isFlag, takesValue map[string]bool }

func flagSet(fs []cli.Flag) flags {
	s := flags{isFlag: map[string]bool{}, takesValue: map[string]bool{}}
	for _, f := range fs {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			s.isFlag[n] = true
			s.takesValue[n] = !isBool
		}
	}
	return s
}
