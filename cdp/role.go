package cdp

// atspiRole maps a Chromium accessibility role (the "role" value of
// Accessibility.getFullAXTree: ARIA role names plus Chromium's internal
// ones) to the AT-SPI role name the shared snapshot shape uses, as
// Chromium's own AT-SPI bridge maps them. A role missing here keeps its
// Chromium name.
var atspiRole = map[string]string{
	"RootWebArea":          "document web",
	"WebArea":              "document web",
	"Iframe":               "internal frame",
	"IframePresentational": "internal frame",
	"StaticText":           "static",
	"LabelText":            "label",
	"Legend":               "label",
	"Abbr":                 "static",
	"LineBreak":            "static",
	"generic":              "section",
	"Section":              "section",
	"paragraph":            "paragraph",
	"heading":              "heading",
	"button":               "push button",
	"PopUpButton":          "combo box",
	"ToggleButton":         "toggle button",
	"link":                 "link",
	"checkbox":             "check box",
	"radio":                "radio button",
	"radiogroup":           "panel",
	"switch":               "switch",
	"textbox":              "entry",
	"searchbox":            "entry",
	"combobox":             "combo box",
	"spinbutton":           "spin button",
	"slider":               "slider",
	"listbox":              "list box",
	"option":               "list item",
	"MenuListPopup":        "menu",
	"MenuListOption":       "menu item",
	"list":                 "list",
	"listitem":             "list item",
	"ListMarker":           "static",
	"menu":                 "menu",
	"menubar":              "menu bar",
	"menuitem":             "menu item",
	"menuitemcheckbox":     "check menu item",
	"menuitemradio":        "radio menu item",
	"tab":                  "page tab",
	"tablist":              "page tab list",
	"tabpanel":             "scroll pane",
	"table":                "table",
	"grid":                 "table",
	"treegrid":             "tree table",
	"row":                  "table row",
	"rowgroup":             "panel",
	"cell":                 "table cell",
	"gridcell":             "table cell",
	"columnheader":         "column header",
	"rowheader":            "row header",
	"tree":                 "tree",
	"treeitem":             "tree item",
	"image":                "image",
	"img":                  "image",
	"figure":               "panel",
	"Canvas":               "canvas",
	"dialog":               "dialog",
	"alertdialog":          "alert",
	"alert":                "notification",
	"status":               "status bar",
	"progressbar":          "progress bar",
	"meter":                "level bar",
	"separator":            "separator",
	"toolbar":              "tool bar",
	"tooltip":              "tool tip",
	"group":                "panel",
	"form":                 "form",
	"main":                 "landmark",
	"navigation":           "landmark",
	"banner":               "landmark",
	"contentinfo":          "landmark",
	"complementary":        "landmark",
	"region":               "landmark",
	"search":               "landmark",
	"article":              "article",
	"blockquote":           "block quote",
	"code":                 "static",
	"DescriptionList":      "description list",
	"term":                 "description term",
	"definition":           "description value",
	"DisclosureTriangle":   "toggle button",
	"details":              "panel",
	"math":                 "math",
	"Video":                "video",
	"Audio":                "audio",
	"time":                 "static",
	"mark":                 "mark",
	"strong":               "static",
	"emphasis":             "static",
	"insertion":            "content insertion",
	"deletion":             "content deletion",
}

// clickRoles are the roles whose nodes get the "click" action in a
// snapshot: what a person clicks.
var clickRoles = map[string]bool{
	"button": true, "PopUpButton": true, "ToggleButton": true, "link": true,
	"checkbox": true, "radio": true, "switch": true, "combobox": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true,
	"MenuListOption": true, "option": true, "tab": true, "treeitem": true,
	"DisclosureTriangle": true, "slider": true, "spinbutton": true,
}

// droppedRoles are nodes left out of a snapshot when they have no name
// (their children move up): layout-only containers. Inline text boxes are
// always left out: they repeat their static text.
var droppedRoles = map[string]bool{
	"none": true, "presentation": true, "generic": true, "InlineTextBox": true,
	"LineBreak": true,
}

// roleName is the AT-SPI name of a Chromium role.
func roleName(r string) string {
	if n, ok := atspiRole[r]; ok {
		return n
	}
	return r
}
