package target

import "strings"

// ShellWord is s as one word of a shell command line, as an answer or a
// refusal writes a command to run: bare when it is plain, else quoted.
func ShellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// WindowVerbs are the vibespace-window verbs that drive window id (a
// desktop app's, say), as a refusal and an answer name them.
func WindowVerbs(id ID) []string {
	return []string{
		"vibespace-window snapshot " + string(id) + " -i",
		"vibespace-window click " + string(id) + " @eN",
		"vibespace-window type " + string(id) + " @eN <text>",
		"vibespace-window key " + string(id) + " <chord>",
		"vibespace-window screenshot " + string(id),
		"vibespace-window click " + string(id) + " --at x,y",
	}
}
