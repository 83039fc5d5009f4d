package cli

import (
	"fmt"
	"io"
	"log/slog"
)

// The log of every heed command goes to stderr through log/slog, in one
// format: what --log-format names (text or json), at the level
// --log-level names (default warn: retries, pauses, robots.txt outages,
// give-ups, lost output); --verbose lowers it to info at least. The
// records a user asks for by a flag (the --stats-interval lines, the
// progress records when stderr is not a terminal) are logged at info
// level through the same handler whatever --log-level says, so they are
// never hidden by the level that hides the rest.

// logSettings are what --log-level, --log-format and --verbose resolve to.
type logSettings struct {
	level slog.Level
	json  bool
}

// parseLogSettings checks the flags' values, with the flags' names in
// its errors.
func parseLogSettings(level, format string, verbose bool) (logSettings, error) {
	var s logSettings
	switch level {
	case "debug":
		s.level = slog.LevelDebug
	case "info":
		s.level = slog.LevelInfo
	case "warn":
		s.level = slog.LevelWarn
	case "error":
		s.level = slog.LevelError
	default:
		return s, usageError("--log-level %q: want debug, info, warn or error", level)
	}
	switch format {
	case "text":
	case "json":
		s.json = true
	default:
		return s, usageError("--log-format %q: want text or json", format)
	}
	if verbose && s.level > slog.LevelInfo {
		s.level = slog.LevelInfo
	}
	return s, nil
}

// handler returns the handler of the settings on w, at least level min.
func (s logSettings) handler(w io.Writer, min slog.Level) slog.Handler {
	opts := &slog.HandlerOptions{Level: min}
	if s.json {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// NewLogger returns the logger heed's --log-level, --log-format and
// --verbose name (see LogFlags), writing to w: for a command of the
// program's own that logs as heed's commands do.
func NewLogger(w io.Writer, level, format string, verbose bool) (*slog.Logger, error) {
	s, err := parseLogSettings(level, format, verbose)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	return slog.New(s.handler(w, s.level)), nil
}

// logger is the command's logger; check has accepted the flags.
func (f *reportFlags) logger(w io.Writer) *slog.Logger {
	s, _ := parseLogSettings(f.logLevel, f.logFormat, f.verbose)
	return slog.New(s.handler(w, s.level))
}

// reportLogger logs what the user asked for by a flag (the statistics
// lines, the progress records): the logger's format, at info level
// whatever --log-level says.
func (f *reportFlags) reportLogger(w io.Writer) *slog.Logger {
	s, _ := parseLogSettings(f.logLevel, f.logFormat, f.verbose)
	return slog.New(s.handler(w, min(s.level, slog.LevelInfo)))
}
