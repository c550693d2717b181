import JSONCore

/// The batch-level context of an mParticle batch: `device_info`, `application_info`, `ip` and
/// the batch `context.location`.
enum MParticleContext {
    /// What a member of `device_info` or `application_info` gives.
    private enum Source: Sendable {
        /// A member copied to this context field.
        case field(ContextField)
        /// Members that need more than a copy.
        case platform, limitAdTracking, language, country
    }

    private static let fields = KeyMap<Source>([
        ("application_name", .field(.appName)), ("application_version", .field(.appVersion)),
        ("application_build_number", .field(.appBuild)), ("package", .field(.appNamespace)),
        ("device_manufacturer", .field(.deviceManufacturer)), ("device_model", .field(.deviceModel)), ("device", .field(.deviceName)),
        ("os_version", .field(.osVersion)), ("ios_idfv", .field(.deviceId)), ("android_uuid", .field(.deviceId)),
        ("ios_advertising_id", .field(.deviceAdvertisingId)), ("android_advertising_id", .field(.deviceAdvertisingId)),
        ("screen_width", .field(.screenWidth)), ("screen_height", .field(.screenHeight)), ("screen_dpi", .field(.screenDensity)),
        ("network_carrier", .field(.networkCarrier)), ("http_header_user_agent", .field(.userAgent)),
        ("platform", .platform), ("limit_ad_tracking", .limitAdTracking), ("locale_language", .language), ("locale_country", .country),
    ])

    private static let locationFields = KeyMap<ContextField>([
        ("city_name", .locationCity), ("country_code", .locationCountry), ("region_code", .locationRegion),
        ("latitude", .locationLatitude), ("longitude", .locationLongitude),
    ])

    /// Fills the workspace's context fields from the batch.
    static func fill(_ record: Record, _ found: Found, _ work: inout Workspace) {
        /// The batch fields, for short.
        typealias F = MParticleRecipe.Field
        let buf = record.bytes
        work.context[.ip] = found[F.ip].map { Piece.scalar($0) } ?? .absent
        if let app = found[F.applicationInfo] { copy(record, app, &work) }
        if let device = found[F.deviceInfo] { copy(record, device, &work) }
        if let context = found[F.context] {
            for m in ObjectMembers(buf, context) where m.value.kind == .object && RecordText.keyIs(buf, m, "location") {
                location(record, m.value, &work)
            }
        }
    }

    /// Copies the members of `device_info` or `application_info` to their context fields (the
    /// first of two sources of a field wins: IDFV over the Android id).
    private static func copy(_ record: Record, _ object: ValueRef, _ work: inout Workspace) {
        let buf = record.bytes
        var language: ValueRef?
        var country: ValueRef?
        for m in ObjectMembers(buf, object) where m.value.kind != .null {
            switch fields[buf, m] {
            case .field(let field): work.context.fill(field, .scalar(m.value))
            case .platform:
                work.context.fill(.osName, .scalar(m.value))
                work.context[.deviceType] = work.lowercased(record, m.value)
            case .limitAdTracking:
                if m.value.kind == .bool { work.context[.deviceAdTrackingEnabled] = .bool(buf[m.value.range.lowerBound] == UInt8(ascii: "f")) }
            case .language: if m.value.kind == .string && m.value.range.count > 2 { language = m.value }
            case .country: if m.value.kind == .string && m.value.range.count > 2 { country = m.value }
            case nil: break
            }
        }
        if let language { work.context[.locale] = locale(record, language, country, &work) }
    }

    /// `locale_language` and `locale_country` as one locale: `en` and `US` give `en-US`.
    private static func locale(_ record: Record, _ language: ValueRef, _ country: ValueRef?, _ work: inout Workspace) -> Piece {
        guard let country, let l = RecordText.plainContent(record.bytes, language.range),
            let c = RecordText.plainContent(record.bytes, country.range)
        else { return .json(language.range) }
        let start = UInt32(work.scratch.count)
        work.scratch.append(UInt8(ascii: "\""))
        work.scratch.append(contentsOf: UnsafeBufferPointer(rebasing: record.bytes[l]))
        work.scratch.append(UInt8(ascii: "-"))
        work.scratch.append(contentsOf: UnsafeBufferPointer(rebasing: record.bytes[c]))
        work.scratch.append(UInt8(ascii: "\""))
        return .scratch(start, UInt32(work.scratch.count))
    }

    /// context.location from an mParticle location object (event `data.location` or the batch's
    /// `context.location`).
    static func location(_ record: Record, _ value: ValueRef, _ work: inout Workspace) {
        for m in ObjectMembers(record.bytes, value) where m.value.kind != .null {
            if let field = locationFields[record.bytes, m] { work.context[field] = .scalar(m.value) }
        }
    }
}
