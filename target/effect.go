package target

// EffectWord is what an acting verb saw happen after it acted, from a
// closed vocabulary an agent can branch on, in text and in JSON alike.
type EffectWord string

// The effect words. Add new ones here; never reuse one for a different fact.
const (
	// EffectConfirmed: the change the verb meant was seen at the node (or
	// target) it acted on — a state, value, text or focus that changed, a
	// tab that navigated — or any node of the target that its target told
	// changed (its text, name or value, a node added or removed, the
	// focus), named.
	EffectConfirmed EffectWord = "confirmed"
	// EffectChangedElsewhere: nothing changed at the node, but something
	// else did — a new window, dialog or tab, the title, the pixels of the
	// region, a page's content its watcher did not name.
	EffectChangedElsewhere EffectWord = "changed_elsewhere"
	// EffectNoVisibleChange: the verb looked, within its bounded wait, and
	// saw nothing change anywhere it can see.
	EffectNoVisibleChange EffectWord = "no_visible_change"
	// EffectUnverifiable: there is no road to observe this verb's effect
	// here (no tree and no pixels of the target), or verification is off.
	EffectUnverifiable EffectWord = "unverifiable"
)

// Effect is what an acting verb observed after it acted, within a bounded
// wait.
type Effect struct {
	Word EffectWord `json:"word"`
	// Seen lists what changed, in words ("checked: unchecked → checked",
	// "new window win:4 \"About\"", "url: /a → /b"); empty when nothing
	// was seen.
	Seen []string `json:"seen,omitempty"`
	// Why says, for unverifiable, why there was no road to look.
	Why string `json:"why,omitempty"`
	// WaitedMS is how long the verb watched for the effect.
	WaitedMS int `json:"waited_ms"`
}
