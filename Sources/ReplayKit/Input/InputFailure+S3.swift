import ObjectStorage

extension InputFailure {
    /// The S3 reader's error as an input failure.
    init(_ error: S3Error) {
        let kind: Kind
        switch error.kind {
        case .accessDenied, .credentials: kind = .refused
        case .noSuchBucket, .noSuchKey: kind = .missing
        case .invalidLocation, .rejected: kind = .invalid
        case .retriesExhausted: kind = .transient
        case .objectChanged: kind = .changed
        }
        var message = error.message
        if kind == .changed {
            message += "; run again: the next run reads the new version as inputs.on_changed says"
        }
        self.init(kind, message)
    }
}
