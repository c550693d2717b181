/// The `properties` of a Mixpanel raw-export event that the recipe reads or moves, and where
/// each reserved one goes in Segment's context.
enum MixpanelField: Int, CaseIterable {
    // Identity and time (consumed on every event).
    case time, distinctId, insertId, deviceId, userId
    // Ingestion metadata Mixpanel adds (dropped).
    case token, processingTime, apiEndpoint, apiTimestamp
    // Identity-management events.
    case identifiedId, anonId, anonDistinctId, alias, distinctIds
    // Reserved properties moved to context.
    case os, osVersion, city, region, countryCode, screenWidth, screenHeight, screenDpi
    /// Device, app, library and network.
    case manufacturer, model, appVersionString, appBuildNumber, lib, libVersion, carrier, wifi, bluetooth
    /// Page, advertising id and campaign.
    case currentURL, referrer, iosIFA, utmSource, utmMedium, utmCampaign, utmTerm, utmContent
    // Page-view properties of `$mp_web_page_view` (mixpanel-js `track_pageview`).
    case pageTitle, pagePath, pageSearch

    /// The property's key.
    var key: String {
        switch self {
        case .time: return "time"
        case .distinctId: return "distinct_id"
        case .insertId: return "$insert_id"
        case .deviceId: return "$device_id"
        case .userId: return "$user_id"
        case .token: return "token"
        case .processingTime: return "mp_processing_time_ms"
        case .apiEndpoint: return "$mp_api_endpoint"
        case .apiTimestamp: return "$mp_api_timestamp_ms"
        case .identifiedId: return "$identified_id"
        case .anonId: return "$anon_id"
        case .anonDistinctId: return "$anon_distinct_id"
        case .alias: return "alias"
        case .distinctIds: return "$distinct_ids"
        case .os: return "$os"
        case .osVersion: return "$os_version"
        case .city: return "$city"
        case .region: return "$region"
        case .countryCode: return "mp_country_code"
        case .screenWidth: return "$screen_width"
        case .screenHeight: return "$screen_height"
        case .screenDpi: return "$screen_dpi"
        case .manufacturer: return "$manufacturer"
        case .model: return "$model"
        case .appVersionString: return "$app_version_string"
        case .appBuildNumber: return "$app_build_number"
        case .lib: return "mp_lib"
        case .libVersion: return "$lib_version"
        case .carrier: return "$carrier"
        case .wifi: return "$wifi"
        case .bluetooth: return "$bluetooth_enabled"
        case .currentURL: return "$current_url"
        case .referrer: return "$referrer"
        case .iosIFA: return "$ios_ifa"
        case .utmSource: return "utm_source"
        case .utmMedium: return "utm_medium"
        case .utmCampaign: return "utm_campaign"
        case .utmTerm: return "utm_term"
        case .utmContent: return "utm_content"
        case .pageTitle: return "current_page_title"
        case .pagePath: return "current_url_path"
        case .pageSearch: return "current_url_search"
        }
    }

    /// The context field a reserved property moves to; nil for the others.
    var context: ContextField? {
        switch self {
        case .os: return .osName
        case .osVersion: return .osVersion
        case .city: return .locationCity
        case .region: return .locationRegion
        case .countryCode: return .locationCountry
        case .screenWidth: return .screenWidth
        case .screenHeight: return .screenHeight
        case .screenDpi: return .screenDensity
        case .manufacturer: return .deviceManufacturer
        case .model: return .deviceModel
        case .appVersionString: return .appVersion
        case .appBuildNumber: return .appBuild
        case .lib: return .libraryName
        case .libVersion: return .libraryVersion
        case .carrier: return .networkCarrier
        case .wifi: return .networkWifi
        case .bluetooth: return .networkBluetooth
        case .currentURL: return .pageUrl
        case .referrer: return .pageReferrer
        case .iosIFA: return .deviceAdvertisingId
        case .utmSource: return .campaignSource
        case .utmMedium: return .campaignMedium
        case .utmCampaign: return .campaignName
        case .utmTerm: return .campaignTerm
        case .utmContent: return .campaignContent
        case .pageTitle: return .pageTitle
        case .pagePath: return .pagePath
        case .pageSearch: return .pageSearch
        default: return nil
        }
    }

    /// ``context`` of every field, by raw value.
    static let contextTargets: [ContextField?] = allCases.map(\.context)

    /// Whether the property stays in `properties`/`traits` on an event of `type` (identity
    /// fields of other event types are ordinary properties there).
    func kept(on type: MixpanelEventKind) -> Bool {
        switch self {
        case .identifiedId, .anonId, .anonDistinctId: return type != .identify
        case .alias: return type != .createAlias
        case .distinctIds: return type != .merge
        case .pageTitle, .pagePath, .pageSearch: return type != .pageView
        default: return false
        }
    }
}

/// The Mixpanel event names the recipe treats specially.
enum MixpanelEventKind {
    /// Any other event; `$identify`; `$create_alias`; `$merge`; `$mp_web_page_view`.
    case track, identify, createAlias, merge, pageView
}
