import JSONCore

/// Google Analytics 4 BigQuery export rows as newline-delimited JSON: INT64 columns are strings
/// (`event_timestamp` in microseconds), `event_params` and `user_properties` are arrays of typed
/// key-value records. No row carries an event id. See docs/recipes.md.
enum GA4Recipe {
    /// The top-level columns the recipe reads.
    enum Field: Int, CaseIterable {
        /// The event, its time and parameters, and the user.
        case eventName, eventTimestamp, eventParams, userId, userPseudoId, userProperties
        /// Device, location, app, platform, campaign and e-commerce columns.
        case device, geo, appInfo, platform, collectedTrafficSource, items, ecommerce

        /// The column's name.
        var key: String {
            switch self {
            case .eventName: return "event_name"
            case .eventTimestamp: return "event_timestamp"
            case .eventParams: return "event_params"
            case .userId: return "user_id"
            case .userPseudoId: return "user_pseudo_id"
            case .userProperties: return "user_properties"
            case .device: return "device"
            case .geo: return "geo"
            case .appInfo: return "app_info"
            case .platform: return "platform"
            case .collectedTrafficSource: return "collected_traffic_source"
            case .items: return "items"
            case .ecommerce: return "ecommerce"
            }
        }
    }

    private static let table = KeyTable(Field.allCases.map(\.key))

    /// Plans and writes the row's event.
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        work.collect(table, from: .top, in: buf)
        let found = work.found
        guard let name = found[Field.eventName], name.kind == .string, name.range.count > 2 else {
            throw .missing(.ga4, "event_name")
        }
        guard let micros = found[Field.eventTimestamp] else { throw .missing(.ga4, "event_timestamp") }
        guard let value = micros.integer(buf) else { throw .invalid(.ga4, "event_timestamp", "is not a number of microseconds") }
        work.startEvent()
        work.plan.timestamp = try work.timestamp(record, millis: value >= 0 ? value / 1000 : (value - 999) / 1000, field: "event_timestamp")
        if RecordText.equals(buf, name.range, "page_view") {
            work.plan.type = .page
        } else if RecordText.equals(buf, name.range, "screen_view") {
            work.plan.type = .screen
        } else {
            work.plan.event = .json(name.range)
        }
        work.plan.userId = found[Field.userId].map { Piece.id($0) } ?? .absent
        work.plan.anonymousId = found[Field.userPseudoId].map { Piece.id($0) } ?? .absent
        guard work.plan.hasIdentity else { throw .missing(.ga4, either: "user_id", or: "user_pseudo_id") }
        work.plan.messageId = work.derivedMessageId(record.identity, .ga4, index: nil)
        work.plan.properties = properties(record, found, &work)
        work.context[.traits] = found[Field.userProperties].map { GA4Params.flatten(record, $0, &work) } ?? .absent
        context(record, found, &work)
        work.plan.context = work.contextPiece
        work.render(buf, into: &out, events: &events)
    }

    /// The flattened `event_params`, then `items` and `ecommerce` without their nulls; the page
    /// and screen parameters also fill `name` and context.page.
    private static func properties(_ record: Record, _ found: Found, _ work: inout Workspace) -> Piece {
        let type = work.plan.type
        let mark = work.open()
        if let params = found[Field.eventParams] {
            GA4Params.add(record, params, &work) { work, special, value in
                switch special {
                case .pageLocation: work.context[.pageUrl] = value
                case .pageTitle: work.context[.pageTitle] = value
                case .pageReferrer: work.context[.pageReferrer] = value
                case .screenName: if type == .screen { work.plan.name = value }
                }
            }
        }
        if let items = found[Field.items] { work.add("items", work.withoutNulls(array: record, items)) }
        if let ecommerce = found[Field.ecommerce], ecommerce.kind == .object { work.add("ecommerce", work.withoutNulls(record, ecommerce)) }
        return work.close(mark)
    }

    /// What a member of `device` gives.
    private enum DeviceField: Sendable {
        /// One case per member of `device` the recipe reads.
        case manufacturer, model, osName, osVersion, vendorId, advertisingId, limitedAdTracking, language, category
    }

    private static let deviceFields = KeyMap<DeviceField>([
        ("mobile_brand_name", .manufacturer), ("mobile_model_name", .model), ("operating_system", .osName),
        ("operating_system_version", .osVersion), ("vendor_id", .vendorId), ("advertising_id", .advertisingId),
        ("is_limited_ad_tracking", .limitedAdTracking), ("language", .language), ("category", .category),
    ])

    /// The context fields of `geo`, `app_info` and `collected_traffic_source` members.
    private static let sectionFields = KeyMap<ContextField>([
        ("city", .locationCity), ("country", .locationCountry), ("region", .locationRegion),
        ("id", .appNamespace), ("version", .appVersion),
        ("manual_campaign_name", .campaignName), ("manual_source", .campaignSource), ("manual_medium", .campaignMedium),
        ("manual_term", .campaignTerm), ("manual_content", .campaignContent),
    ])

    /// Context from the `device`, `geo`, `app_info`, `platform` and `collected_traffic_source`
    /// columns.
    private static func context(_ record: Record, _ found: Found, _ work: inout Workspace) {
        let buf = record.bytes
        if let platform = found[Field.platform] { work.context[.deviceType] = work.lowercased(record, platform) }
        if let device = found[Field.device] { self.device(record, device, &work) }
        for field in [Field.geo, .appInfo, .collectedTrafficSource] {
            guard let value = found[field] else { continue }
            for m in ObjectMembers(buf, value) where m.value.kind != .null {
                if let target = sectionFields[buf, m] { work.context[target] = .scalar(m.value) }
            }
        }
    }

    /// Context from the `device` column.
    private static func device(_ record: Record, _ device: ValueRef, _ work: inout Workspace) {
        let buf = record.bytes
        // On the web GA4 writes the browser's vendor and name in mobile_brand_name and
        // mobile_model_name: they describe a device only for mobile and tablet rows.
        var mobile = false
        var brand: Piece = .absent
        var model: Piece = .absent
        for m in ObjectMembers(buf, device) where m.value.kind != .null {
            let v = m.value
            switch deviceFields[buf, m] {
            case .manufacturer: brand = .scalar(v)
            case .model: model = .scalar(v)
            case .osName: work.context[.osName] = .scalar(v)
            case .osVersion: work.context[.osVersion] = .scalar(v)
            case .vendorId: work.context[.deviceId] = .scalar(v)
            case .advertisingId: work.context[.deviceAdvertisingId] = .scalar(v)
            case .limitedAdTracking:
                if RecordText.equals(buf, v.range, "Yes") { work.context[.deviceAdTrackingEnabled] = .bool(false) }
                if RecordText.equals(buf, v.range, "No") { work.context[.deviceAdTrackingEnabled] = .bool(true) }
            case .language: work.context[.locale] = .scalar(v)
            case .category: mobile = RecordText.equals(buf, v.range, "mobile") || RecordText.equals(buf, v.range, "tablet")
            case nil: break
            }
        }
        if mobile {
            work.context[.deviceManufacturer] = brand
            work.context[.deviceModel] = model
        }
    }
}
