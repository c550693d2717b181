/// The process exit codes, shown in `--help` and documented in `docs/collector.md`.
enum ExitCodes {
    /// Stopped by SIGINT or SIGTERM after serving.
    static let stopped: Int32 = 0
    /// The server failed while running (for example the store could not be written or closed).
    static let failed: Int32 = 1
    /// A usage or config error: bad or conflicting flags, a store or TLS file that cannot be used.
    static let usage: Int32 = 2
    /// The server could not listen: the address is in use or cannot be bound.
    static let cannotListen: Int32 = 3

    /// The codes as `--help` shows them: one row each, at most 78 columns, so ArgumentParser
    /// never wraps a row in the middle.
    static let help = """
        Exit codes:
          \(stopped)   stopped by SIGINT/SIGTERM; the final stats JSON is on stderr
          \(failed)   the server failed while running (e.g. the store could not be written)
          \(usage)   usage or config error (bad flags, unusable store or TLS files)
          \(cannotListen)   cannot listen: the address is in use or cannot be bound
        """
}
