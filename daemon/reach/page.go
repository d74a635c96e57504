package reach

// Rung 1: a plain HTTP fetch of the address and its readable text, and
// what in the page says the fetch cannot serve it.

import (
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/vibespace/vibespace/daemon/wire"
)

// maxBody bounds what a fetch reads of a page.
const maxBody = 4 << 20

// UserAgent is the fetch's User-Agent: it says no browser asked.
const UserAgent = "vibespace-reach/1 (a plain fetch, no browser)"

// fetched is what a fetch read of an address.
type fetched struct {
	status  int
	ctype   string
	title   string
	text    string // its readable text, a block a line
	words   int    // words of text
	scripts int    // <script> elements
	canvas  int    // <canvas> elements with no fallback text
	passwd  bool   // an <input type=password>
	marks   string // what of its markup may name a bot check (ids, classes, iframe titles), lower case
	hidden  string // the text of its <noscript>, lower case
}

// fetch reads url with a GET, bounded by ctx and maxBody.
func fetch(ctx context.Context, client *http.Client, url string) (fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fetched{}, err
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.1")
	resp, err := client.Do(req)
	if err != nil {
		return fetched{}, err
	}
	defer resp.Body.Close()
	p := fetched{status: resp.StatusCode}
	p.ctype, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	body := io.LimitReader(resp.Body, maxBody)
	switch p.ctype {
	case "text/html", "application/xhtml+xml", "":
		doc, err := html.Parse(body)
		if err != nil {
			return p, err
		}
		p.read(doc)
	case "text/plain":
		b, err := io.ReadAll(body)
		if err != nil {
			return p, err
		}
		p.text = strings.TrimSpace(string(b))
	default:
		_, _ = io.Copy(io.Discard, body)
	}
	p.words = len(strings.Fields(p.text))
	return p, nil
}

// skipped are the elements whose content is no readable text.
var skipped = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Template: true, atom.Svg: true,
	atom.Head: true, atom.Iframe: true, atom.Object: true, atom.Noscript: true, atom.Canvas: true}

// blocks are the elements that start a line of text.
var blocks = map[atom.Atom]bool{atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true, atom.Section: true,
	atom.Article: true, atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Main: true, atom.Ul: true,
	atom.Ol: true, atom.Table: true, atom.Form: true, atom.Pre: true, atom.Blockquote: true, atom.Dt: true,
	atom.Dd: true, atom.Label: true, atom.Button: true, atom.Figcaption: true, atom.Aside: true}

// read takes doc's title, readable text and the marks of what it is.
func (p *fetched) read(doc *html.Node) {
	var text, marks, hidden strings.Builder
	var walk func(n *html.Node, skip bool)
	walk = func(n *html.Node, skip bool) {
		switch n.Type {
		case html.TextNode:
			if !skip {
				text.WriteString(n.Data)
			}
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Title:
				if p.title == "" {
					p.title = strings.Join(strings.Fields(textOf(n)), " ")
				}
			case atom.Script:
				p.scripts++
			case atom.Canvas:
				if strings.TrimSpace(textOf(n)) == "" {
					p.canvas++
				}
			case atom.Noscript:
				hidden.WriteString(strings.ToLower(textOf(n)) + " ")
			case atom.Input:
				if strings.EqualFold(attr(n, "type"), "password") {
					p.passwd = true
				}
			case atom.Iframe:
				marks.WriteString(strings.ToLower(attr(n, "title")+" "+attr(n, "src")) + " ")
			}
			marks.WriteString(strings.ToLower(attr(n, "id")+" "+attr(n, "class")) + " ")
			skip = skip || skipped[n.DataAtom]
			if blocks[n.DataAtom] {
				text.WriteString("\n")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, skip)
		}
		if n.Type == html.ElementNode && blocks[n.DataAtom] {
			text.WriteString("\n")
		}
	}
	walk(doc, false)
	p.text = lines(text.String())
	p.marks, p.hidden = marks.String(), hidden.String()
}

// textOf is all the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// lines is s with its white space collapsed and its empty lines left out.
func lines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// fewWords: a page with fewer words of text than this, and scripts, is
// written by its scripts.
const fewWords = 5

// loginWords: a password field on a page of fewer words than this is a
// login wall, not a page with a login box.
const loginWords = 80

// signals are what the fetched page says a fetch cannot serve.
func (p fetched) signals() []wire.ReachSignal {
	var out []wire.ReachSignal
	if p.status == http.StatusUnauthorized {
		out = append(out, saw(Fetch, LoginPage, "the server answered %d %s", p.status, http.StatusText(p.status)))
	}
	switch p.ctype {
	case "text/html", "application/xhtml+xml", "text/plain", "":
	default:
		return append(out, saw(Fetch, NotText, "the address answers %s, no text a fetch reads", p.ctype))
	}
	if phrase := botPhrase(strings.ToLower(p.title+"\n"+p.text+"\n"+p.hidden), p.marks); phrase != "" {
		out = append(out, saw(Fetch, BotCheck, "the page is a check that a person is there (%q)", phrase))
	}
	if p.passwd && p.words < loginWords && p.status != http.StatusUnauthorized {
		out = append(out, saw(Fetch, LoginPage, "a password field on a page of %d words", p.words))
	}
	switch {
	case p.words < fewWords && p.scripts > 0:
		out = append(out, saw(Fetch, ScriptOnly, "%d word(s) of text and %d script(s): its scripts write the page", p.words, p.scripts))
	case p.words == 0 && p.canvas == 0:
		out = append(out, saw(Fetch, EmptyContent, "no readable text (HTTP %d)", p.status))
	}
	if p.canvas > 0 {
		out = append(out, saw(Fetch, Canvas, "%d canvas element(s) with no text of their own: drawn by script", p.canvas))
	}
	return out
}

// botPhrases are what a bot check says; botMarks what its markup is
// named (ids, classes, an iframe's title or address).
var (
	botPhrases = []string{"verify you are human", "verify that you are human", "are you a robot", "not a robot",
		"are you human", "human verification", "human check", "prove you are human", "prove you're human",
		"checking your browser", "press and hold", "unusual traffic", "complete the security check", "captcha"}
	botMarks = []string{"captcha", "cf-turnstile", "cf-challenge", "challenge-form", "px-captcha"}
)

// botPhrase is the phrase of a bot check that text (lower case) says or
// marks names, "" none.
func botPhrase(text, marks string) string {
	for _, ph := range botPhrases {
		if strings.Contains(text, ph) {
			return ph
		}
	}
	for _, m := range botMarks {
		if strings.Contains(marks, m) {
			return m
		}
	}
	return ""
}

// excerpt is text cut to at most max bytes on a line's end, saying how
// much it left out.
func excerpt(text string, max int) string {
	if len(text) <= max {
		return text
	}
	cut := strings.LastIndexByte(text[:max], '\n')
	if cut <= 0 {
		cut = max
	}
	return text[:cut] + fmt.Sprintf("\n… %d more bytes of text", len(text)-cut)
}
