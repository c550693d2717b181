import Digests
import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// What a partition is made with, beyond its inputs: what changes which shard a line goes to,
/// and whether and what it teaches. A partition and the run that replays it must agree on it.
package struct PartitionSettings: Sendable, Equatable {
    var shards: Int
    /// The config's settings that decide routing and teaching, as `key=value` lines.
    var configLines: [String]

    /// The settings of a partition of `config` into `shards`.
    init(config: ReplayConfig, shards: Int) {
        self.shards = shards
        let e = config.enrichment
        configLines =
            [
                "enrichment.identity.user_lines=\(e.identity.userLines.rawValue)",
                "enrichment.identity.device_lines=\(e.identity.deviceLines.rawValue)",
                "enrichment.identity.logout_events=\(e.identity.logoutEvents.joined(separator: "\u{1F}"))",
                "enrichment.default_timestamp=\(e.defaultTimestamp)",
                "privacy.require_consent=\(config.privacy.requireConsent)",
                "batching.max_event_bytes=\(config.delivery.maxEventBytes)",
                "inputs.max_event_age=\(config.inputs.maxEventAge.description)",
            ] + config.inputs.shaping.written.sorted().map { "inputs.shaping.\($0)" }
    }

    /// The hex SHA-256 of the settings: equal for a partition and a run that agree.
    var fingerprint: String {
        let text = "shards=\(shards)\n" + configLines.joined(separator: "\n")
        return Digest.hex(Digest.sha256(Array(text.utf8)))
    }

    /// The partition's device anonymousId, which lines with neither id get: every worker, on any
    /// machine, derives the same one from the partition's inputs (a lowercase UUID in the version
    /// 5 layout).
    static func deviceAnonymousId(inputsFingerprint: String) -> String {
        let name = Array(("mr-replay partition device " + inputsFingerprint).utf8)
        var digest = Array(name.withUnsafeBytes { Digest.sha1($0) }.prefix(16))
        digest[6] = (digest[6] & 0x0F) | 0x50
        digest[8] = (digest[8] & 0x3F) | 0x80
        let c = Array(Digest.hex(digest))
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
    /// The fingerprint of a partition's inputs: each one's key, size and identity, in order.
    static func inputsFingerprint(_ inputs: [(path: String, size: UInt64, identity: String)]) -> String {
        let hasher = SHA256Hasher()
        for input in inputs { hasher.update(Array("\(input.path)\t\(input.size)\t\(input.identity)\n".utf8)) }
        return Digest.hex(hasher.finalize())
    }

    /// The inputs of worker `worker` of `workers`: a contiguous run of the partition's inputs,
    /// cut by their sizes so each worker reads about the same number of bytes (input `i` goes to
    /// the worker whose share holds its middle byte). Every worker computes the same cut.
    package static func inputRange(worker: Int, of workers: Int, sizes: [UInt64]) -> Range<Int> {
        let total = sizes.reduce(0, +)
        var start: Int?
        var end = 0
        var before: UInt64 = 0
        for (i, size) in sizes.enumerated() {
            let middle = Double(before) + Double(size) / 2
            let owner = total == 0 ? i * workers / max(sizes.count, 1) : min(workers - 1, Int(middle / Double(total) * Double(workers)))
            before += size
            if owner == worker {
                if start == nil { start = i }
                end = i + 1
            }
        }
        guard let start else { return 0..<0 }
        return start..<end
    }
}
