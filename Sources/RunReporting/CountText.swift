/// How the tool writes a count for people, everywhere (progress, the end-of-run summary, the
/// trial summary): digits in groups of three, `60,000`. Machine output (report.json, metrics,
/// `--json`) keeps plain numbers.
package enum CountText {
    /// `n` with a comma between groups of three digits: `1,234,567`, `-1,000`, `999`.
    package static func of(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = n < 0 ? "-" : ""
        out.reserveCapacity(digits.count + digits.count / 3 + 1)
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
