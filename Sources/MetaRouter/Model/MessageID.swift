import Foundation

/// Message ids in the SDK's format, `<epochMillis>-<uuid>` with a lowercase UUID.
package enum MessageID {
    /// A message id for `millis` and `uuid`.
    package static func make(epochMillis millis: Int64, uuid: UUID) -> String {
        "\(millis)-\(uuid.uuidString.lowercased())"
    }

    /// A fresh message id for the time `date`.
    package static func generate(at date: Date, uuid: UUID = UUID()) -> String {
        make(epochMillis: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)), uuid: uuid)
    }

    /// Whether `id` has the `<epochMillis>-<uuid>` shape.
    package static func isWellFormed(_ id: String) -> Bool {
        guard let dash = id.firstIndex(of: "-") else { return false }
        let millis = id[..<dash]
        guard !millis.isEmpty, millis.allSatisfy(\.isASCII), Int64(millis) != nil else { return false }
        return UUID(uuidString: String(id[id.index(after: dash)...])) != nil
    }
}
