/// The `properties` of a PostHog event that the recipe reads, and where the reserved ones go.
enum PostHogField: Int, CaseIterable {
    // Identity and person updates.
    case set, setOnce, anonDistinctId, deviceId, isIdentified, distinctId, alias, token
    // Groups.
    case groupType, groupKey, groupSet
    // Screens and pages.
    case screenName, title
    // Reserved properties moved to context.
    case currentURL, pathname, referrer, os, osVersion, lib, libVersion, browserLanguage, locale, timezone, rawUserAgent, ip
    /// GeoIP location and screen.
    case geoCity, geoCountry, geoRegion, geoLatitude, geoLongitude, screenHeight, screenWidth
    /// Device and app (mobile SDKs).
    case deviceManufacturer, deviceModel, deviceName, deviceType, appName, appVersion, appBuild, appNamespace
    /// Network (mobile SDKs).
    case networkCarrier, networkWifi, networkCellular, networkBluetooth
    /// Campaign.
    case utmSource, utmMedium, utmCampaign, utmTerm, utmContent

    /// The property's key.
    var key: String {
        switch self {
        case .set: return "$set"
        case .setOnce: return "$set_once"
        case .anonDistinctId: return "$anon_distinct_id"
        case .deviceId: return "$device_id"
        case .isIdentified: return "$is_identified"
        case .distinctId: return "distinct_id"
        case .alias: return "alias"
        case .token: return "token"
        case .groupType: return "$group_type"
        case .groupKey: return "$group_key"
        case .groupSet: return "$group_set"
        case .screenName: return "$screen_name"
        case .title: return "title"
        case .currentURL: return "$current_url"
        case .pathname: return "$pathname"
        case .referrer: return "$referrer"
        case .os: return "$os"
        case .osVersion: return "$os_version"
        case .lib: return "$lib"
        case .libVersion: return "$lib_version"
        case .browserLanguage: return "$browser_language"
        case .locale: return "$locale"
        case .timezone: return "$timezone"
        case .rawUserAgent: return "$raw_user_agent"
        case .ip: return "$ip"
        case .geoCity: return "$geoip_city_name"
        case .geoCountry: return "$geoip_country_name"
        case .geoRegion: return "$geoip_subdivision_1_name"
        case .geoLatitude: return "$geoip_latitude"
        case .geoLongitude: return "$geoip_longitude"
        case .screenHeight: return "$screen_height"
        case .screenWidth: return "$screen_width"
        case .deviceManufacturer: return "$device_manufacturer"
        case .deviceModel: return "$device_model"
        case .deviceName: return "$device_name"
        case .deviceType: return "$device_type"
        case .appName: return "$app_name"
        case .appVersion: return "$app_version"
        case .appBuild: return "$app_build"
        case .appNamespace: return "$app_namespace"
        case .networkCarrier: return "$network_carrier"
        case .networkWifi: return "$network_wifi"
        case .networkCellular: return "$network_cellular"
        case .networkBluetooth: return "$network_bluetooth"
        case .utmSource: return "utm_source"
        case .utmMedium: return "utm_medium"
        case .utmCampaign: return "utm_campaign"
        case .utmTerm: return "utm_term"
        case .utmContent: return "utm_content"
        }
    }

    /// The context field a reserved property moves to; nil for the others.
    var context: ContextField? {
        switch self {
        case .currentURL: return .pageUrl
        case .pathname: return .pagePath
        case .referrer: return .pageReferrer
        case .os: return .osName
        case .osVersion: return .osVersion
        case .lib: return .libraryName
        case .libVersion: return .libraryVersion
        case .browserLanguage, .locale: return .locale
        case .timezone: return .timezone
        case .rawUserAgent: return .userAgent
        case .ip: return .ip
        case .geoCity: return .locationCity
        case .geoCountry: return .locationCountry
        case .geoRegion: return .locationRegion
        case .geoLatitude: return .locationLatitude
        case .geoLongitude: return .locationLongitude
        case .screenHeight: return .screenHeight
        case .screenWidth: return .screenWidth
        case .deviceManufacturer: return .deviceManufacturer
        case .deviceModel: return .deviceModel
        case .deviceName: return .deviceName
        case .deviceType: return .deviceType
        case .appName: return .appName
        case .appVersion: return .appVersion
        case .appBuild: return .appBuild
        case .appNamespace: return .appNamespace
        case .networkCarrier: return .networkCarrier
        case .networkWifi: return .networkWifi
        case .networkCellular: return .networkCellular
        case .networkBluetooth: return .networkBluetooth
        case .utmSource: return .campaignSource
        case .utmMedium: return .campaignMedium
        case .utmCampaign: return .campaignName
        case .utmTerm: return .campaignTerm
        case .utmContent: return .campaignContent
        default: return nil
        }
    }

    /// ``context`` of every field, by raw value.
    static let contextTargets: [ContextField?] = allCases.map(\.context)

    /// Whether the property stays in `properties` on an event of `kind` (a property the recipe
    /// only reads for other kinds of events is an ordinary property there).
    func kept(on kind: PostHogEventKind) -> Bool {
        switch self {
        case .anonDistinctId: return kind != .identify
        case .alias: return kind != .alias && kind != .mergeDangerously
        case .groupType, .groupKey, .groupSet: return kind != .groupIdentify
        case .screenName: return kind != .screen
        case .title: return kind != .pageView
        case .isIdentified, .distinctId: return false
        default: return context == nil && self != .set && self != .setOnce && self != .deviceId && self != .token
        }
    }
}

/// The PostHog event names the recipe treats specially.
enum PostHogEventKind {
    /// Any other event, and the events of the same names (`$identify`, `$set`, ...).
    case track, identify, set, pageView, screen, groupIdentify, alias, mergeDangerously
}
