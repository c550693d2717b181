import Digests
import Foundation
import ReplayConfiguration

/// The destination a state directory's checkpoint belongs to: the host, the path, and the first
/// 16 hex digits of the write key's SHA-256 (never the key). For a loopback host the port is
/// left out: a local collector gets a new port each time it starts. A checkpoint says which lines one
/// destination has; running the same state against another would "resume past" lines that
/// destination never got, so ``check(_:identity:fresh:)`` refuses it.
struct CheckpointDestination: Codable, Equatable, CustomStringConvertible {
    var host: String
    var path: String
    var writeKeySHA256: String

    enum CodingKeys: String, CodingKey {
        case host, path
        case writeKeySHA256 = "write_key_sha256"
    }

    /// Where the stored destination is kept (`identity.sqlite`'s metadata).
    static let metadataKey = "destination"

    /// The destination `config` sends to.
    init(_ config: ReplayConfig) {
        host = Self.withoutLoopbackPort(config.ingestion.host)
        path = config.delivery.path
        writeKeySHA256 = String(Digest.hex(Digest.sha256(Array(config.writeKey.utf8))).prefix(16))
    }

    /// `http://127.0.0.1:8088` → `http://127.0.0.1`; other hosts as given.
    static func withoutLoopbackPort(_ host: String) -> String {
        guard var parts = URLComponents(string: host), let name = parts.host,
            ["127.0.0.1", "localhost", "::1", "[::1]"].contains(name.lowercased())
        else { return host }
        parts.port = nil
        return parts.string ?? host
    }

    var description: String { "\(host)\(host == "embedded" ? "" : path) (write key sha256 \(writeKeySHA256)…)" }

    /// The stored form.
    var encoded: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }

    /// Refuses (exit 2) to use `identity`'s checkpoint for another destination than `config`'s.
    /// A destination is stored with the first checkpoint after an event was delivered to it (see
    /// ``StateDirectory/saveCheckpoint(_:plan:runState:identity:)``), so a run that reached no
    /// destination (a wrong write key, exit 3) does not claim the state; `--fresh` forgets it.
    static func check(_ config: ReplayConfig, identity: IdentityStore, stateDirectory: String) throws {
        let current = CheckpointDestination(config)
        guard let text = try identity.metadata(metadataKey),
            let stored = try? JSONDecoder().decode(CheckpointDestination.self, from: Data(text.utf8)), stored != current
        else { return }
        throw UsageError(
            "the state in \(stateDirectory) belongs to \(stored), and this run sends to \(current). "
                + "Its checkpoint says which lines that destination has; use --fresh to send everything to the new one, "
                + "or another --state-dir")
    }
}
