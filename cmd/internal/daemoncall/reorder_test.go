package daemoncall

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestReorderLiftsGlobalFlagsWithValues(t *testing.T) {
	a := &cli.App{
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}, &cli.StringFlag{Name: "profile"}},
		Commands: []*cli.Command{{Name: "snapshot", Flags: []cli.Flag{JSONFlag, &cli.BoolFlag{Name: "interactive", Aliases: []string{"i"}}}},
			{Name: "fill", Flags: []cli.Flag{JSONFlag}}},
	}
	for _, tc := range []struct{ in, want string }{
		{"x snapshot -i --profile work", "x --profile work snapshot -i"},
		{"x --profile work snapshot -i", "x --profile work snapshot -i"},
		{"x --profile=work snapshot --json", "x --profile=work snapshot --json"},
		{"x fill @e1 --profile w --json hi", "x --profile w fill --json -- @e1 hi"},
		{"x fill @e1 -- --profile", "x fill -- @e1 --profile"},
	} {
		got := strings.Join(Reorder(a, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("Reorder(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestKeepOnlyCommand(t *testing.T) {
	app := func() *cli.App {
		return &cli.App{
			Flags:    []cli.Flag{&cli.StringFlag{Name: "profile"}},
			Commands: []*cli.Command{{Name: "snapshot"}, {Name: "fill"}, {Name: "click", Aliases: []string{"c"}}},
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"x --profile snapshot fill @e1", "fill"}, // snapshot is the profile's value
		{"x click @e1", "click"},
		{"x c @e1", "click"},
		{"x", "snapshot fill click"},
		{"x --profile w", "snapshot fill click"},
		{"x clik @e1", "snapshot fill click"}, // misspelt: the suggestions need them all
		{"x help fill", "snapshot fill click"},
		{"x fill --help", "snapshot fill click"},
		{"x -h", "snapshot fill click"},
	} {
		a := app()
		KeepOnlyCommand(a, strings.Fields(tc.in))
		var names []string
		for _, c := range a.Commands {
			names = append(names, c.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("KeepOnlyCommand(%q) keeps %q, want %q", tc.in, got, tc.want)
		}
	}
}
