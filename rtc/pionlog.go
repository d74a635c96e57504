package rtc

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/pion/logging"
)

// pionLogs adapts pion's logging to one slog.Logger: the scope becomes an
// attribute. pion is chatty, so its trace is dropped, its debug and info go
// to slog's debug level, its warnings to info and its errors to warn.
type pionLogs struct{ l *slog.Logger }

func (f pionLogs) NewLogger(scope string) logging.LeveledLogger {
	return pionLogger{f.l.With("pion", scope)}
}

type pionLogger struct{ l *slog.Logger }

func (p pionLogger) log(level slog.Level, msg string) {
	if p.l.Enabled(context.Background(), level) {
		p.l.Log(context.Background(), level, msg)
	}
}

func (p pionLogger) Trace(string)                 {}
func (p pionLogger) Tracef(string, ...any)        {}
func (p pionLogger) Debug(msg string)             { p.log(slog.LevelDebug, msg) }
func (p pionLogger) Debugf(f string, args ...any) { p.log(slog.LevelDebug, fmt.Sprintf(f, args...)) }
func (p pionLogger) Info(msg string)              { p.log(slog.LevelInfo, msg) }
func (p pionLogger) Infof(f string, args ...any)  { p.log(slog.LevelInfo, fmt.Sprintf(f, args...)) }
func (p pionLogger) Warn(msg string)              { p.log(slog.LevelWarn, msg) }
func (p pionLogger) Warnf(f string, args ...any)  { p.log(slog.LevelWarn, fmt.Sprintf(f, args...)) }
func (p pionLogger) Error(msg string)             { p.log(slog.LevelError, msg) }
func (p pionLogger) Errorf(f string, args ...any) { p.log(slog.LevelError, fmt.Sprintf(f, args...)) }
