package rtc

import (
	"log/slog"

	"github.com/pion/logging"
)

// PionLogs adapts pion's logging to l, for the tests' own pion peers.
func PionLogs(l *slog.Logger) logging.LoggerFactory { return pionLogs{l} }
