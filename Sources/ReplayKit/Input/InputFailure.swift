import RunReporting

/// An input that cannot be read for a reason that stops the command: an `s3://` input whose
/// store refused the credentials, a bucket or key that does not exist, or failures that went on
/// past the retries. Its message names the input (the `s3://` URL) and, for a refusal, where the
/// credentials came from, never a secret. Before a run starts it ends the command with
/// ``exitCode``; during a run it stops the run (``RunReport/Status``: `failed_fatal` for a
/// refusal, `stopped_transient` for what a later run can get past), with its checkpoint.
public struct InputFailure: Error, Sendable, CustomStringConvertible {
    /// Why the input cannot be read.
    public enum Kind: Sendable, Equatable {
        /// 401 or 403, or the credentials are missing or refused (exit 3).
        case refused
        /// The bucket or the key does not exist (exit 2).
        case missing
        /// A setting or an `s3://` location is not valid, or the store refused the request in a
        /// way a retry cannot fix (a bucket in another region) (exit 2).
        case invalid
        /// Failures a retry can fix went on past the retries (exit 75).
        case transient
        /// The object changed while it was read (another ETag): a later run applies
        /// `inputs.on_changed` to it (exit 75).
        case changed
    }

    /// Why.
    public let kind: Kind
    /// The message, naming the input.
    public let description: String

    /// A failure of `kind`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The exit status of a command that stops on it before anything was sent.
    public var exitCode: Int32 {
        switch kind {
        case .refused: ExitStatus.refused
        case .missing, .invalid: ExitStatus.usage
        case .transient, .changed: ExitStatus.interrupted
        }
    }

    /// Runs `body`, ignoring its errors except an ``InputFailure`` and a stop request
    /// (`CancellationError`), which it throws: for reads that only look at an input (what kind
    /// it is), where a bad file is reported when the run reads it, but a store that refused must
    /// stop the command.
    static func passingOn(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as InputFailure {
            throw failure
        } catch let cancelled as CancellationError {
            throw cancelled
        } catch {}
    }
}
