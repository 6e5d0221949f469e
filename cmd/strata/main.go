// Command strata runs the Strata server: strata [/path/to/strata.conf] [--directive value ...].
package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/strata-db/strata/config"
	"github.com/strata-db/strata/server"
)

func main() {
	if runTool(os.Args[1:]) {
		return
	}
	for _, a := range os.Args[1:] {
		switch a {
		case "--help", "-h":
			fmt.Print(config.Usage())
			return
		case "--version", "-v":
			fmt.Printf("strata %s\n", server.Version)
			return
		}
	}
	cfg, err := config.Load(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "strata:", err)
		os.Exit(1)
	}
	logger, closeLog, err := newLogger(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "strata:", err)
		os.Exit(1)
	}
	defer closeLog()
	slog.SetDefault(logger)

	setMemoryLimit(cfg, logger) // tools.go
	srv, err := server.New(cfg, logger)
	if err == nil && len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "--") {
		// CONFIG REWRITE writes back to the file the server was started with.
		path, aerr := filepath.Abs(os.Args[1])
		if aerr == nil {
			srv.SetConfigFile(path)
		}
	}
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		logger.Error("start-up failed", "err", err)
		os.Exit(1)
	}
	logger.Info("strata started", "version", server.Version, "addr", strings.Join(srv.Addrs(), " "), "dir", cfg.Dir,
		"leveldb-block-size", cfg.LevelDBBlockSize, "leveldb-write-buffer-size", cfg.LevelDBWriteBufferSize,
		"leveldb-block-cache-size", cfg.LevelDBBlockCacheSize, "leveldb-compression", cfg.LevelDBCompression,
		"leveldb-max-open-files", cfg.LevelDBMaxOpenFiles, "leveldb-bloom-bits", cfg.LevelDBBloomBits,
		"appendfsync", cfg.AppendFsync)

	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	reason := "SHUTDOWN command"
	select {
	case s := <-sig:
		reason = s.String()
	case <-srv.ShutdownRequested():
	}
	go func() {
		s := <-sig
		logger.Error("second signal: exiting without a clean shutdown", "signal", s.String())
		os.Exit(2)
	}()
	logger.Info("shutting down", "reason", reason)
	if err := srv.Close(); err != nil {
		logger.Error("shutdown", "reason", reason, "err", err)
		os.Exit(1)
	}
	logger.Info("strata stopped cleanly", "reason", reason)
}

// newLogger builds the slog logger for cfg's loglevel and logfile.
func newLogger(cfg *config.Config) (*slog.Logger, func(), error) {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "verbose": slog.LevelDebug,
		"notice": slog.LevelInfo, "warning": slog.LevelWarn}[cfg.LogLevel]
	var out io.Writer = os.Stderr
	closeFn := func() {}
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, err
		}
		out, closeFn = f, func() { f.Close() }
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})), closeFn, nil
}
