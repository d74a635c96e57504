package x11

// ReportOurs makes w report our own XTEST input too, so that a test can see
// that it makes raw events which the watch leaves out.
func ReportOurs(w *InputWatch) { w.reportOurs.Store(true) }
