import JSONCore
import MetaRouterDelivery

/// Apple's App Tracking Transparency status, as the Trackier seed describes it, read by name or
/// by Apple's raw value.
enum TrackingStatus: Equatable {
    /// 0, `notDetermined`: the user was not asked yet.
    case notDetermined
    /// 1, `restricted`.
    case restricted
    /// 2, `denied`.
    case denied
    /// 3, `authorized`: the only status that allows the IDFA.
    case authorized
    /// Anything else: not authorized.
    case unrecognised

    /// The status named by `text`: a name in any case (`authorized`, `notDetermined`,
    /// `not_determined`, ...) or a raw value (`"3"`). Nil for an empty string.
    init?(text: String) {
        let t = text.lowercased().replacingOccurrences(of: "_", with: "").replacingOccurrences(of: " ", with: "")
        switch t {
        case "": return nil
        case "0", "notdetermined": self = .notDetermined
        case "1", "restricted": self = .restricted
        case "2", "denied": self = .denied
        case "3", "authorized": self = .authorized
        default: self = .unrecognised
        }
    }

    /// The status held by a JSON member: a string, or an integer raw value. Nil when absent,
    /// null or an empty string.
    init?(_ m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) {
        guard let m else { return nil }
        switch m.kind {
        case .string: self.init(text: JSONLayoutValues.stringContent(buf, m.value))
        case .number: self.init(text: String(decoding: UnsafeBufferPointer(rebasing: buf[m.value]), as: UTF8.self))
        case .null: return nil
        default: self = .unrecognised
        }
    }

    /// The status held by a config value.
    init?(_ value: JSONValue) {
        switch value {
        case .string(let s): self.init(text: s)
        case .number(let n): self.init(text: n.description)
        case .null: return nil
        default: self = .unrecognised
        }
    }
}

/// When `context.device.advertisingId` may be sent: it is a UUID that is not all zeros,
/// `adTrackingEnabled` is not `false`, and the ATT status, when one is given, is authorized.
package enum AdvertisingRules {
    /// Whether the string value at `range` of `buf` (with its quotes) may be sent.
    static func allows(
        _ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, adTrackingEnabled: Bool?, status: TrackingStatus?
    ) -> Bool {
        guard adTrackingEnabled != false, status == nil || status == .authorized else { return false }
        return isUsable(buf, range)
    }

    /// Whether the quoted JSON string `quoted` may be sent.
    static func allows(quoted: [UInt8], adTrackingEnabled: Bool?, status: TrackingStatus?) -> Bool {
        quoted.withUnsafeBufferPointer { allows($0, 0..<$0.count, adTrackingEnabled: adTrackingEnabled, status: status) }
    }

    /// Whether the string value at `range` (with quotes) is a UUID (letters in either case) that
    /// is not all zeros.
    package static func isUsable(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count == UUIDText.count + 2 else { return false }
        // The 36 bytes after the opening quote lie inside `range`, inside `buf`.
        guard let uuid = UUIDText.read(buf.baseAddress! + range.lowerBound + 1) else { return false }
        return uuid.first != 0 || uuid.second != 0
    }
}
