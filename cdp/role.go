package cdp

import (
	"strings"
	"unicode"
)

// roleTable maps Chromium's accessibility roles to the AT-SPI role names
// the shared snapshot shape uses, as Chromium's own AT-SPI bridge maps
// them. Accessibility.getFullAXTree names a role by its ARIA name when it
// has one ("button", "generic") and otherwise by its internal name, the
// ax::mojom::Role enumerator without its "k" ("RootWebArea",
// "LayoutTableCell", "ColorWell"). Each row is one enumerator: its internal
// name, the ARIA names that stand for it, and the AT-SPI name. Every
// enumerator of ax::mojom::Role is here; a role Chromium adds later still
// prints in words (roleName).
var roleTable = [...]struct {
	internal string
	aria     []string
	atspi    string
}{
	{"Abbr", nil, "static"},
	{"Alert", []string{"alert"}, "notification"},
	{"AlertDialog", []string{"alertdialog"}, "alert"},
	{"Application", []string{"application"}, "embedded"},
	{"Article", []string{"article"}, "article"},
	{"Audio", nil, "audio"},
	{"Banner", []string{"banner"}, "landmark"},
	{"Blockquote", []string{"blockquote"}, "block quote"},
	{"Button", []string{"button"}, "push button"},
	{"Canvas", nil, "canvas"},
	{"Caption", []string{"caption"}, "caption"},
	{"Caret", nil, "unknown"},
	{"Cell", []string{"cell", "gridcell"}, "table cell"},
	{"CheckBox", []string{"checkbox"}, "check box"},
	{"Client", nil, "panel"},
	{"Code", []string{"code"}, "static"},
	{"ColorWell", nil, "color chooser"},
	{"Column", nil, "panel"},
	{"ColumnHeader", []string{"columnheader"}, "column header"},
	{"ComboBoxGrouping", nil, "combo box"},
	{"ComboBoxMenuButton", nil, "combo box"},
	{"Complementary", []string{"complementary"}, "landmark"},
	{"Comment", []string{"comment"}, "comment"},
	{"ContentDeletion", []string{"deletion"}, "content deletion"},
	{"ContentInsertion", []string{"insertion"}, "content insertion"},
	{"ContentInfo", []string{"contentinfo"}, "landmark"},
	{"Date", nil, "date editor"},
	{"DateTime", nil, "date editor"},
	{"Definition", []string{"definition"}, "description value"},
	{"DescriptionList", nil, "description list"},
	{"DescriptionListDetailDeprecated", nil, "description value"},
	{"DescriptionListTermDeprecated", nil, "description term"},
	{"Desktop", nil, "desktop frame"},
	{"Details", nil, "panel"},
	{"Dialog", []string{"dialog"}, "dialog"},
	{"DirectoryDeprecated", []string{"directory"}, "list"},
	{"DisclosureTriangle", nil, "toggle button"},
	{"DocAbstract", []string{"doc-abstract"}, "section"},
	{"DocAcknowledgments", []string{"doc-acknowledgments"}, "landmark"},
	{"DocAfterword", []string{"doc-afterword"}, "landmark"},
	{"DocAppendix", []string{"doc-appendix"}, "landmark"},
	{"DocBackLink", []string{"doc-backlink"}, "link"},
	{"DocBiblioEntry", []string{"doc-biblioentry"}, "list item"},
	{"DocBibliography", []string{"doc-bibliography"}, "landmark"},
	{"DocBiblioRef", []string{"doc-biblioref"}, "link"},
	{"DocChapter", []string{"doc-chapter"}, "landmark"},
	{"DocColophon", []string{"doc-colophon"}, "section"},
	{"DocConclusion", []string{"doc-conclusion"}, "landmark"},
	{"DocCover", []string{"doc-cover"}, "image"},
	{"DocCredit", []string{"doc-credit"}, "section"},
	{"DocCredits", []string{"doc-credits"}, "landmark"},
	{"DocDedication", []string{"doc-dedication"}, "section"},
	{"DocEndnote", []string{"doc-endnote"}, "list item"},
	{"DocEndnotes", []string{"doc-endnotes"}, "landmark"},
	{"DocEpigraph", []string{"doc-epigraph"}, "section"},
	{"DocEpilogue", []string{"doc-epilogue"}, "landmark"},
	{"DocErrata", []string{"doc-errata"}, "landmark"},
	{"DocExample", []string{"doc-example"}, "section"},
	{"DocFootnote", []string{"doc-footnote"}, "footnote"},
	{"DocForeword", []string{"doc-foreword"}, "landmark"},
	{"DocGlossary", []string{"doc-glossary"}, "landmark"},
	{"DocGlossRef", []string{"doc-glossref"}, "link"},
	{"DocIndex", []string{"doc-index"}, "landmark"},
	{"DocIntroduction", []string{"doc-introduction"}, "landmark"},
	{"DocNoteRef", []string{"doc-noteref"}, "link"},
	{"DocNotice", []string{"doc-notice"}, "comment"},
	{"DocPageBreak", []string{"doc-pagebreak"}, "separator"},
	{"DocPageFooter", []string{"doc-pagefooter"}, "footer"},
	{"DocPageHeader", []string{"doc-pageheader"}, "header"},
	{"DocPageList", []string{"doc-pagelist"}, "landmark"},
	{"DocPart", []string{"doc-part"}, "landmark"},
	{"DocPreface", []string{"doc-preface"}, "landmark"},
	{"DocPrologue", []string{"doc-prologue"}, "landmark"},
	{"DocPullquote", []string{"doc-pullquote"}, "section"},
	{"DocQna", []string{"doc-qna"}, "section"},
	{"DocSubtitle", []string{"doc-subtitle"}, "heading"},
	{"DocTip", []string{"doc-tip"}, "comment"},
	{"DocToc", []string{"doc-toc"}, "landmark"},
	{"Document", []string{"document"}, "document frame"},
	{"EmbeddedObject", nil, "embedded"},
	{"Emphasis", []string{"emphasis"}, "static"},
	{"Feed", []string{"feed"}, "panel"},
	{"Figcaption", nil, "caption"},
	{"Figure", []string{"figure"}, "panel"},
	{"Footer", nil, "landmark"},
	{"SectionFooter", nil, "footer"},
	{"Form", []string{"form"}, "form"},
	{"GenericContainer", []string{"generic"}, "section"},
	{"GraphicsDocument", []string{"graphics-document"}, "document frame"},
	{"GraphicsObject", []string{"graphics-object"}, "panel"},
	{"GraphicsSymbol", []string{"graphics-symbol"}, "image"},
	{"Grid", []string{"grid"}, "table"},
	{"Group", []string{"group"}, "panel"},
	{"Header", nil, "landmark"},
	{"SectionHeader", nil, "header"},
	{"Heading", []string{"heading"}, "heading"},
	{"Iframe", nil, "internal frame"},
	{"IframePresentational", nil, "internal frame"},
	{"Image", []string{"image", "img"}, "image"},
	{"ImeCandidate", nil, "list item"},
	{"InlineTextBox", nil, "static"},
	{"InputTime", nil, "date editor"},
	{"Keyboard", nil, "panel"},
	{"LabelText", nil, "label"},
	{"LayoutTable", nil, "table"},
	{"LayoutTableCell", nil, "table cell"},
	{"LayoutTableRow", nil, "table row"},
	{"Legend", nil, "label"},
	{"LineBreak", nil, "static"},
	{"Link", []string{"link"}, "link"},
	{"List", []string{"list"}, "list"},
	{"ListBox", []string{"listbox"}, "list box"},
	{"ListBoxOption", []string{"option"}, "list item"},
	{"ListGrid", nil, "table"},
	{"ListItem", []string{"listitem"}, "list item"},
	{"ListMarker", nil, "static"},
	{"Log", []string{"log"}, "log"},
	{"Main", []string{"main"}, "landmark"},
	{"Mark", []string{"mark"}, "mark"},
	{"Marquee", []string{"marquee"}, "marquee"},
	{"Math", []string{"math"}, "math"},
	{"Menu", []string{"menu"}, "menu"},
	{"MenuBar", []string{"menubar"}, "menu bar"},
	{"MenuItem", []string{"menuitem"}, "menu item"},
	{"MenuItemCheckBox", []string{"menuitemcheckbox"}, "check menu item"},
	{"MenuItemRadio", []string{"menuitemradio"}, "radio menu item"},
	{"MenuListOption", nil, "menu item"},
	{"MenuListPopup", nil, "menu"},
	{"Meter", []string{"meter"}, "level bar"},
	{"Navigation", []string{"navigation"}, "landmark"},
	{"None", []string{"none", "presentation"}, "section"},
	{"Note", []string{"note"}, "comment"},
	{"Pane", nil, "panel"},
	{"Paragraph", []string{"paragraph"}, "paragraph"},
	{"PdfActionableHighlight", nil, "push button"},
	{"PdfRoot", nil, "document frame"},
	{"PluginObject", nil, "embedded"},
	{"PopUpButton", nil, "combo box"},
	{"PortalDeprecated", nil, "push button"},
	{"PreDeprecated", nil, "section"},
	{"Pre", nil, "section"},
	{"ProgressIndicator", []string{"progressbar"}, "progress bar"},
	{"RadioButton", []string{"radio"}, "radio button"},
	{"RadioGroup", []string{"radiogroup"}, "panel"},
	{"Region", []string{"region"}, "landmark"},
	{"RootWebArea", nil, "document web"},
	{"WebArea", nil, "document web"},
	{"Row", []string{"row"}, "table row"},
	{"RowGroup", []string{"rowgroup"}, "panel"},
	{"RowHeader", []string{"rowheader"}, "row header"},
	{"Ruby", nil, "static"},
	{"RubyAnnotation", nil, "static"},
	{"ScrollBar", []string{"scrollbar"}, "scroll bar"},
	{"ScrollView", nil, "scroll pane"},
	{"Search", []string{"search"}, "landmark"},
	{"SearchBox", []string{"searchbox"}, "entry"},
	{"Section", []string{"section", "sectionheader", "sectionfooter"}, "section"},
	{"Slider", []string{"slider"}, "slider"},
	{"SpinButton", []string{"spinbutton"}, "spin button"},
	{"Splitter", []string{"separator"}, "separator"},
	{"StaticText", nil, "static"},
	{"Status", []string{"status"}, "status bar"},
	{"Strong", []string{"strong"}, "static"},
	{"Subscript", []string{"subscript"}, "static"},
	{"Superscript", []string{"superscript"}, "static"},
	{"Suggestion", []string{"suggestion"}, "section"},
	{"SvgRoot", nil, "image"},
	{"Switch", []string{"switch"}, "switch"},
	{"Tab", []string{"tab"}, "page tab"},
	{"TabList", []string{"tablist"}, "page tab list"},
	{"TabPanel", []string{"tabpanel"}, "scroll pane"},
	{"Table", []string{"table"}, "table"},
	{"TableHeaderContainer", nil, "panel"},
	{"Term", []string{"term"}, "description term"},
	{"TextField", []string{"textbox"}, "entry"},
	{"TextFieldWithComboBox", []string{"combobox"}, "combo box"},
	{"Time", []string{"time"}, "static"},
	{"Timer", []string{"timer"}, "timer"},
	{"TitleBar", nil, "title bar"},
	{"ToggleButton", nil, "toggle button"},
	{"Toolbar", []string{"toolbar"}, "tool bar"},
	{"Tooltip", []string{"tooltip"}, "tool tip"},
	{"Tree", []string{"tree"}, "tree"},
	{"TreeGrid", []string{"treegrid"}, "tree table"},
	{"TreeItem", []string{"treeitem"}, "tree item"},
	{"Unknown", nil, "unknown"},
	{"Video", nil, "video"},
	{"WebView", nil, "panel"},
	{"Window", nil, "window"},
	// MathML's roles (ax::mojom::Role's kMathML…) print as math; the
	// prefix rule in roleName covers the ones not listed.
	{"MathMLMath", nil, "math"},
	{"MathMLFraction", nil, "math fraction"},
	{"MathMLRoot", nil, "math root"},
	{"MathMLSquareRoot", nil, "math root"},
}

// atspiRole is roleTable by every name Chromium gives a role: internal
// and ARIA.
var atspiRole = func() map[string]string {
	m := make(map[string]string, 2*len(roleTable))
	for _, r := range roleTable {
		m[r.internal] = r.atspi
		for _, a := range r.aria {
			m[a] = r.atspi
		}
	}
	return m
}()

// clickRoles are the roles whose nodes get the "click" action in a
// snapshot: what a person clicks.
var clickRoles = map[string]bool{
	"button": true, "PopUpButton": true, "ToggleButton": true, "link": true,
	"checkbox": true, "radio": true, "switch": true, "combobox": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true,
	"MenuListOption": true, "option": true, "tab": true, "treeitem": true,
	"DisclosureTriangle": true, "slider": true, "spinbutton": true,
	"ColorWell": true,
}

// droppedRoles are nodes left out of a snapshot when they have no name
// and nothing to act on (their children move up): layout-only containers.
// Inline text boxes are always left out: they repeat their static text.
var droppedRoles = map[string]bool{
	"none": true, "presentation": true, "generic": true, "InlineTextBox": true,
	"LineBreak": true,
}

// wrapperRoles are containers that only group what is inside them: with
// no name and nothing to act on they get no key (so no ref), and fold
// away when they hold one node or none (foldWrapper).
var wrapperRoles = map[string]bool{
	"generic": true, "Section": true, "section": true, "LabelText": true, "group": true,
	"paragraph": true, "LayoutTable": true, "LayoutTableRow": true, "LayoutTableCell": true,
	"Pre": true, "PreDeprecated": true, "Ruby": true, "Abbr": true, "strong": true,
	"emphasis": true, "code": true, "time": true, "mark": true, "subscript": true,
	"superscript": true, "rowgroup": true, "Legend": true, "Details": true, "Figcaption": true,
	"none": true, "presentation": true, "Div": true, "MenuListPopup": true, "figure": true,
	"Pane": true, "Client": true, "TableHeaderContainer": true, "GraphicsObject": true,
}

// wrapperNames are the AT-SPI roles that are wrappers whatever Chromium
// role they come from: unnamed, they only group.
var wrapperNames = map[string]bool{
	"section": true, "static": true, "panel": true, "label": true, "paragraph": true,
}

// keylessRoles are nodes that never get a key: text, which is read with
// its parent, and the document, which the header names.
var keylessRoles = map[string]bool{
	"StaticText": true, "RootWebArea": true, "ListMarker": true, "LineBreak": true, "InlineTextBox": true,
}

// roleName is the AT-SPI name of a Chromium role. A role missing from the
// table (one Chromium added since) is spelled in lower-case words, never
// as Chromium's CamelCase: "FooBarBaz" prints "foo bar baz".
func roleName(r string) string {
	if n, ok := atspiRole[r]; ok {
		return n
	}
	if strings.HasPrefix(r, "MathML") {
		return "math"
	}
	return words(r)
}

// words spells a CamelCase role in lower-case words.
func words(r string) string {
	var b strings.Builder
	rs := []rune(r)
	for i, c := range rs {
		if c == '-' || c == '_' {
			b.WriteByte(' ')
			continue
		}
		if unicode.IsUpper(c) {
			// A word starts at an upper-case letter after a lower-case
			// one, or at the last upper-case letter of a run before a
			// lower-case one ("SVGRoot": "svg root").
			if i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte(' ')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}
