/// `mr-replay`'s exit statuses, declared once: what cron and scripts read from a command's end.
/// `--help` and the README list them.
package enum ExitStatus {
    /// Everything delivered (also at `--limit N`); `validate`: every line valid.
    package static let delivered: Int32 = 0
    /// Completed, but some events were dead-lettered; `validate`: some lines invalid.
    package static let deadLettered: Int32 = 1
    /// A usage or config error, or a missing input, bucket or key: nothing was sent.
    package static let usage: Int32 = 2
    /// The destination or the object store refused (401, 403, 404, or TLS that a retry cannot
    /// fix); the checkpoint is kept.
    package static let refused: Int32 = 3
    /// Interrupted, stopped on transient failures, the state directory held by another run, or a
    /// local failure such as a full disk: a re-run resumes.
    package static let interrupted: Int32 = 75
}
