package app

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// reorder moves a command's flags in front of its positional arguments, so
// that "click win:1 --at 5,5" parses as agents write it (urfave/cli/v2 stops
// at the first positional). Everything after "--" stays positional.
func reorder(a *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		i++ // global flags (all boolean)
	}
	if i >= len(args) {
		return args
	}
	cmd := a.Command(args[i])
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	isFlag := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			isFlag[n] = true
			takesValue[n] = !isBool
		}
	}
	// urfave's own help flag is not among cmd.Flags.
	isFlag["help"], isFlag["h"] = true, true
	rest := args[i+1:]
	var flags, pos []string
	for j := 0; j < len(rest); j++ {
		s := rest[j]
		if s == "--" {
			pos = append(pos, rest[j:]...)
			break
		}
		name := strings.TrimLeft(s, "-")
		name, _, hasEq := strings.Cut(name, "=")
		if strings.HasPrefix(s, "-") && isFlag[name] {
			flags = append(flags, s)
			if takesValue[name] && !hasEq && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
			continue
		}
		pos = append(pos, s)
	}
	out := append([]string{}, args[:i+1]...)
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
