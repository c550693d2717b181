import RunReporting

extension ReplayRunner {
    /// How a run ends when reading threw `error` (the lines read before it were recorded and
    /// stay in the checkpoint's care; nothing after it was handed on):
    /// - a stop request that woke a blocked S3 read: `interrupted`;
    /// - an input that cannot be read (``InputFailure``): `failed_fatal` when its store refused
    ///   (exit 3), `stopped_transient` when a later run can get past it (exit 75);
    /// - anything else (the state directory failed): `stopped_transient`.
    static func readingFailure(_ error: any Error, stopRequested: Bool) -> (RunReport.Status, String) {
        if error is CancellationError, stopRequested { return (.interrupted, "stopped by a signal") }
        if let failure = error as? InputFailure { return (failure.runStatus, failure.description) }
        return (.stoppedTransient, "reading or checkpointing failed: \(error)")
    }
}

extension InputFailure {
    /// How a run that stops on it ends: a refusal or an invalid request is `failed_fatal`, the
    /// rest `stopped_transient`.
    var runStatus: RunReport.Status {
        switch kind {
        case .refused, .invalid, .missing: .failedFatal
        case .transient, .changed: .stoppedTransient
        }
    }
}
