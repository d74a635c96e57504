// Command summary reads the output of `make bench` (every package's `go test
// -bench`, one stream on stdin) and prints the one table a newcomer reads
// first: each row ours ÷ the peer measured in the same run, the goal the
// issue that set it gave, met or not. The rows are the goals below; a row
// the run did not measure says so and is not met. Its exit status is 0 even
// when goals are not met: a benchmark reports, it never fails a build.
package main

import (
	"fmt"
	"os"

	"github.com/vibespace/vibespace/internal/benchtable"
)

const module = "github.com/vibespace/vibespace"

func main() {
	r, err := benchtable.Parse(os.Stdin, module)
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
	fmt.Println("\nvibespace against its peers, this run (ours ÷ theirs; medians where a row ran more than once)")
	if err := benchtable.Write(os.Stdout, benchtable.Judge(r, goals)); err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
		os.Exit(1)
	}
}
