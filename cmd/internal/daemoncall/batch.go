package daemoncall

// batch: several steps in one call, each line a command as this command
// line takes it ("click @e3", "fill @e5 \"x\" --expect changed"), read
// through the command line's own commands (Options.Capture) and sent as
// one request; the daemon runs them in order (daemon/batch).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/vibespace/vibespace/daemon/args"
	"github.com/vibespace/vibespace/daemon/verb"
	"github.com/vibespace/vibespace/daemon/wire"
	"github.com/vibespace/vibespace/target"
)

// BatchSpec is what batch needs of its command line: its app, made with
// given options (to read each line through it), whether its commands name
// a window first (vibespace-window's), and how it asks the daemon.
type BatchSpec struct {
	NewApp  func(Options) *cli.App
	Windows bool
	Ask     func(c *cli.Context, req wire.Request, timeout time.Duration) error
}

// BatchCommand is batch.
func BatchCommand(o Options, spec BatchSpec) *cli.Command {
	ex, usageLine := "vibespace-browser batch < steps", "[--file F]"
	if spec.Windows {
		ex, usageLine = "vibespace-window batch win:1 < steps", "[<handle>] [--file F]"
	}
	return &cli.Command{
		Name: "batch", Usage: "run several steps in one call, one command a line (stdin or --file), stopping at the first refused or whose --expect did not hold",
		ArgsUsage: usageLine,
		Description: `Reads one step a line (stdin, or --file F), each a command as this command line
takes it, and runs them in order in one call: each step is admitted, leased,
budgeted, watched for its effect, audited and traced as if sent alone (the trace
keeps them under the batch's id). The batch stops at the first step refused (the
batch is refused with that step's code) or at a step whose --expect did not hold
(expect_unmet); the answer says each step's effect, and where and why it stopped.
Blank lines and lines starting with # are skipped. A step acts on or reads a
target: ` + strings.Join(batchWords(spec.Windows), ", ") + `.
` + windowWords(spec.Windows) + `
--expect on a step (at most ` + fmt.Sprint(args.MaxBatchSteps) + ` steps):
   changed            its effect was confirmed or changed_elsewhere
   text:"Saved"       a snapshot of its target holds the words afterwards
   window[:"Title"]   a new window (or tab) opened

   ` + ex + `
   fill @e3 "ada@example.com"
   fill @e4 --secret login-password
   click @e5 --expect text:"Welcome"

The batch has the time of one verb (30 s by default) for all its steps.`,
		Flags: []cli.Flag{JSONFlag, &cli.StringFlag{Name: "file", Usage: "read the steps from `F` instead of stdin"}},
		Action: func(c *cli.Context) error {
			handle := ""
			switch {
			case spec.Windows && c.NArg() == 1:
				handle = c.Args().First()
			case c.NArg() > 0:
				return Usage("batch takes %s; its steps come one a line on stdin or from --file", usageLine)
			}
			lines, err := batchLines(o, c.String("file"))
			if err != nil {
				return err
			}
			var steps []args.Step
			for _, l := range lines {
				st, err := batchStep(c, o, spec, handle, l.text)
				if err != nil {
					return Usage("batch line %d (%s): %v", l.n, target.Clip(l.text), err)
				}
				steps = append(steps, st)
			}
			if len(steps) == 0 {
				return Usage("batch read no steps: one command a line, on stdin or from --file")
			}
			return spec.Ask(c, args.Request("batch", handle, args.Batch{Steps: steps}), CallTimeout)
		},
	}
}

// batchWords are the verbs a batch runs as steps, by their words.
func batchWords(windows bool) []string {
	var out []string
	for _, f := range verb.All() {
		if f.Reach != verb.None && (f.Acts || f.Reads) && !f.Picture && f.Browser() != windows {
			out = append(out, f.Word())
		}
	}
	return out
}

func windowWords(windows bool) string {
	if !windows {
		return "Each step acts on your current tab."
	}
	return "A line names its window (click win:2 @e3) or acts on the batch's <handle>."
}

type batchLine struct {
	n    int
	text string
}

// batchLines reads the steps' lines from file, or stdin when "".
func batchLines(o Options, file string) ([]batchLine, error) {
	var in io.Reader = o.Stdin
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, Usage("batch --file: %v", err)
		}
		in = bytes.NewReader(b)
	}
	if in == nil {
		return nil, Usage("batch reads its steps from stdin or --file, and there is neither")
	}
	var out []batchLine
	sc := bufio.NewScanner(io.LimitReader(in, 1<<20))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		out = append(out, batchLine{n: n, text: t})
	}
	if err := sc.Err(); err != nil {
		return nil, Usage("batch: reading the steps: %v", err)
	}
	return out, nil
}

// batchStep reads one line as its command would: the request it would
// send, captured, and its --expect.
func batchStep(c *cli.Context, o Options, spec BatchSpec, handle, line string) (args.Step, error) {
	words, err := SplitLine(line)
	if err != nil {
		return args.Step{}, err
	}
	var expect string
	var rest []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "--":
			rest = append(rest, words[i:]...)
			i = len(words)
		case w == "--expect" || w == "-expect":
			if i+1 >= len(words) {
				return args.Step{}, fmt.Errorf("--expect needs what to expect: changed, text:\"…\", window")
			}
			expect, i = words[i+1], i+1
		case strings.HasPrefix(w, "--expect="):
			expect = strings.TrimPrefix(w, "--expect=")
		default:
			rest = append(rest, w)
		}
	}
	if len(rest) == 0 {
		return args.Step{}, fmt.Errorf("no command")
	}
	if _, err := args.ParseExpect(expect); err != nil {
		return args.Step{}, err
	}
	if spec.Windows && handle != "" && (len(rest) < 2 || !isHandle(rest[1])) {
		rest = append([]string{rest[0], handle}, rest[1:]...)
	}
	var got *wire.Request
	var errb bytes.Buffer
	co := o
	co.Stdout, co.Stderr, co.Stdin = io.Discard, &errb, nil
	co.Capture = func(r wire.Request) { got = &r }
	argv := append([]string{o.Name}, rest...)
	if code := Run(c.Context, spec.NewApp(co), argv, co); code != ExitOK || got == nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = "it sends no request a batch can run"
		}
		return args.Step{}, fmt.Errorf("%s", msg)
	}
	st := args.Step{Verb: strings.TrimPrefix(got.Verb, verb.BrowserPrefix), Expect: expect}
	if spec.Windows {
		st.Target = got.Target
	}
	if len(got.Args) > 0 {
		if err := json.Unmarshal(got.Args, &st.Args); err != nil {
			return args.Step{}, err
		}
	}
	return st, nil
}

// isHandle reports whether w is a target's handle (win:N, tab:N).
func isHandle(w string) bool {
	_, err := target.ParseID(w)
	return err == nil
}

// SplitLine splits a line into words as a shell would, without running
// anything: white space separates, "…" and '…' quote (a backslash escapes
// the next character outside single quotes).
func SplitLine(line string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range line {
		switch {
		case esc:
			cur.WriteRune(r)
			esc, in = false, true
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("an unclosed quote")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
