import ReplayKit

extension ExitStatus {
    /// The exit statuses as `--help` shows them: one row each, short enough (at most 78 columns)
    /// that ArgumentParser never wraps a row in the middle; the README's table has the details.
    static let help = """
        Exit codes:
          \(pad(delivered))everything delivered (validate: every line valid)
          \(pad(deadLettered))completed; some events dead-lettered (validate: some lines invalid)
          \(pad(usage))usage or config error, or a missing input, bucket or key: nothing sent
          \(pad(refused))refused: 401, 403, 404, TLS that no retry can fix, or S3 refused
          \(pad(interrupted))interrupted, transient or local failure, or state dir busy: run again
        """

    /// `code` left-aligned in four columns.
    private static func pad(_ code: Int32) -> String {
        let text = String(code)
        return text + String(repeating: " ", count: max(1, 4 - text.count))
    }
}
