/// The Segment `context` fields a recipe fills, in the sections the spec groups them in.
enum ContextField: Int, CaseIterable {
    /// `context.app`.
    case appName, appVersion, appBuild, appNamespace
    /// `context.campaign`.
    case campaignName, campaignSource, campaignMedium, campaignTerm, campaignContent
    /// `context.device`.
    case deviceId, deviceAdvertisingId, deviceAdTrackingEnabled, deviceManufacturer, deviceModel, deviceName, deviceType
    /// `context.library`.
    case libraryName, libraryVersion
    /// `context.location`.
    case locationCity, locationCountry, locationRegion, locationLatitude, locationLongitude
    /// `context.network`.
    case networkBluetooth, networkCarrier, networkCellular, networkWifi
    /// `context.os`.
    case osName, osVersion
    /// `context.page`.
    case pagePath, pageReferrer, pageSearch, pageTitle, pageUrl
    /// `context.screen`.
    case screenWidth, screenHeight, screenDensity
    /// Members of `context` itself.
    case ip, locale, timezone, userAgent, traits, externalIds

    /// The member's key inside its section (or in `context` itself).
    var key: StaticString {
        switch self {
        case .appName, .campaignName, .libraryName, .osName, .deviceName: return "name"
        case .appVersion, .libraryVersion, .osVersion: return "version"
        case .appBuild: return "build"
        case .appNamespace: return "namespace"
        case .campaignSource: return "source"
        case .campaignMedium: return "medium"
        case .campaignTerm: return "term"
        case .campaignContent: return "content"
        case .deviceId: return "id"
        case .deviceAdvertisingId: return "advertisingId"
        case .deviceAdTrackingEnabled: return "adTrackingEnabled"
        case .deviceManufacturer: return "manufacturer"
        case .deviceModel: return "model"
        case .deviceType: return "type"
        case .locationCity: return "city"
        case .locationCountry: return "country"
        case .locationRegion: return "region"
        case .locationLatitude: return "latitude"
        case .locationLongitude: return "longitude"
        case .networkBluetooth: return "bluetooth"
        case .networkCarrier: return "carrier"
        case .networkCellular: return "cellular"
        case .networkWifi: return "wifi"
        case .pagePath: return "path"
        case .pageReferrer: return "referrer"
        case .pageSearch: return "search"
        case .pageTitle: return "title"
        case .pageUrl: return "url"
        case .screenWidth: return "width"
        case .screenHeight: return "height"
        case .screenDensity: return "density"
        case .ip: return "ip"
        case .locale: return "locale"
        case .timezone: return "timezone"
        case .userAgent: return "userAgent"
        case .traits: return "traits"
        case .externalIds: return "externalIds"
        }
    }

    /// The sections of `context` and the fields of each (a mask of raw values), in the order
    /// they are written.
    static let sections: [(key: StaticString, fields: UInt64)] = [
        ("app", mask(ContextField.appName.rawValue...ContextField.appNamespace.rawValue)),
        ("campaign", mask(ContextField.campaignName.rawValue...ContextField.campaignContent.rawValue)),
        ("device", mask(ContextField.deviceId.rawValue...ContextField.deviceType.rawValue)),
        ("library", mask(ContextField.libraryName.rawValue...ContextField.libraryVersion.rawValue)),
        ("location", mask(ContextField.locationCity.rawValue...ContextField.locationLongitude.rawValue)),
        ("network", mask(ContextField.networkBluetooth.rawValue...ContextField.networkWifi.rawValue)),
        ("os", mask(ContextField.osName.rawValue...ContextField.osVersion.rawValue)),
        ("page", mask(ContextField.pagePath.rawValue...ContextField.pageUrl.rawValue)),
        ("screen", mask(ContextField.screenWidth.rawValue...ContextField.screenDensity.rawValue)),
    ]

    /// Every field's ``key``, by raw value.
    static let keys: [StaticString] = (0..<ContextField.externalIds.rawValue + 1).map { ContextField(rawValue: $0)!.key }

    /// Fields written directly in `context`, after the sections (a mask of raw values).
    static let loose = mask(ContextField.ip.rawValue...ContextField.externalIds.rawValue)

    /// The mask of the fields whose raw values are in `range`.
    static func mask(_ range: ClosedRange<Int>) -> UInt64 {
        range.reduce(0) { $0 | 1 << UInt64($1) }
    }
}

/// The context fields of one event, each a ``Piece`` (absent until a recipe sets it).
struct ContextFields {
    /// One piece per ``ContextField``.
    private var pieces = [Piece](repeating: .absent, count: ContextField.allCases.count)
    /// Bit `k` set: field `k` holds a present piece.
    private(set) var present: UInt64 = 0

    /// Whether no field is set.
    var isEmpty: Bool { present == 0 }

    /// Unsets every field.
    @inline(__always)
    mutating func clear() {
        present = 0
    }

    /// The piece of `field`.
    subscript(field: ContextField) -> Piece {
        get { present & (1 << UInt64(field.rawValue)) != 0 ? pieces[field.rawValue] : .absent }
        set {
            let bit: UInt64 = 1 << UInt64(field.rawValue)
            if newValue.isPresent {
                pieces[field.rawValue] = newValue
                present |= bit
            } else {
                present &= ~bit
            }
        }
    }

    /// Sets every field to its value in `saved` (a copy of these fields taken earlier), copying
    /// only the fields either of them has set.
    mutating func restore(_ saved: ContextFields) {
        var bits = present | saved.present
        while bits != 0 {
            let k = bits.trailingZeroBitCount
            bits &= bits - 1
            pieces[k] = saved.pieces[k]
        }
        present = saved.present
    }

    /// Lends the pieces, one per ``ContextField`` by raw value (only those whose bit is set in
    /// ``present`` are meaningful), to `body`.
    func withPieces<R>(_ body: (UnsafeBufferPointer<Piece>) -> R) -> R { pieces.withUnsafeBufferPointer(body) }

    /// Sets `field` unless it is already set (a first source wins over later ones).
    @inline(__always)
    mutating func fill(_ field: ContextField, _ value: Piece) {
        guard present & (1 << UInt64(field.rawValue)) == 0 else { return }
        self[field] = value
    }
}

extension Workspace {
    /// The `context` piece of the event being planned: its context fields, or absent when none
    /// is set.
    var contextPiece: Piece { context.isEmpty ? .absent : .contextFields }
}
