import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// Config context defaults, encoded once.
struct ContextDefaultsJSON {
    var app: [(key: String, value: [UInt8])] = []
    var device: [(key: String, value: [UInt8])] = []
    var os: [(key: String, value: [UInt8])] = []
    var locale: [UInt8]?
    var timezone: [UInt8]?
    /// `device.advertisingId` of the config (kept out of ``device``: it is added only where the
    /// advertising rules allow it, event by event).
    var advertisingId: [UInt8]?
    /// The config's own `device.adTrackingEnabled` and `device.trackingStatus`.
    var adTrackingEnabled: Bool?
    var trackingStatus: TrackingStatus?

    init(_ c: ReplayConfig.ContextDefaults) {
        func encode(_ o: JSONObject?) -> [(key: String, value: [UInt8])] {
            (o?.members ?? []).map { ($0.key, JSONValue.encoded($0.value)) }
        }
        app = encode(c.app)
        device = encode(c.device)
        os = encode(c.os)
        locale = c.locale.map(JSONStrings.quoted)
        timezone = c.timezone.map(JSONStrings.quoted)
        if let k = device.firstIndex(where: { $0.key == "advertisingId" }) { advertisingId = device.remove(at: k).value }
        if case .bool(let b)? = c.device?["adTrackingEnabled"] { adTrackingEnabled = b }
        trackingStatus = c.device?["trackingStatus"].flatMap(TrackingStatus.init)
    }

    /// The config's `device` defaults for an event whose own context says `contextStatus` (its
    /// `att_status`) and has no device: with the advertisingId when the rules allow it.
    func deviceDefaults(contextStatus: TrackingStatus?, removed: inout Int) -> [(key: String, value: [UInt8])] {
        guard let advertisingId else { return device }
        let status = trackingStatus ?? contextStatus
        if AdvertisingRules.allows(quoted: advertisingId, adTrackingEnabled: adTrackingEnabled, status: status) {
            return device + [("advertisingId", advertisingId)]
        }
        removed += 1
        return device
    }

    /// Whether no context default is configured.
    var isEmpty: Bool {
        app.isEmpty && device.isEmpty && os.isEmpty && locale == nil && timezone == nil && advertisingId == nil
    }

    /// The `context` object for an event without one: `library` plus every configured default
    /// (the advertisingId only where the rules allow it; `removed` counts it otherwise).
    func contextWithout(library: [UInt8], removed: inout Int) -> [UInt8] {
        var members: [(key: String, value: [UInt8])] = [("library", library)]
        if !app.isEmpty { members.append(("app", ContextDefaultsJSON.object(app))) }
        let device = deviceDefaults(contextStatus: nil, removed: &removed)
        if !device.isEmpty { members.append(("device", ContextDefaultsJSON.object(device))) }
        if !os.isEmpty { members.append(("os", ContextDefaultsJSON.object(os))) }
        if let locale { members.append(("locale", locale)) }
        if let timezone { members.append(("timezone", timezone)) }
        return ContextDefaultsJSON.object(members)
    }

    static func object(_ members: [(key: String, value: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (i, m) in members.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONStrings.appendQuoted(m.key, to: &out)
            out.append(UInt8(ascii: ":"))
            out += m.value
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension JSONValue {
    /// The compact JSON encoding of `value`.
    static func encoded(_ value: JSONValue) -> [UInt8] { value.encoded }
}

/// Why a context could not be enriched.
package struct ContextFailure: Error {
    let detail: String
}

extension LinePreparer {
    /// `m` with the `paths` of `privacy.drop_properties` removed, when any were.
    mutating func dropping(_ paths: [[String]], from m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let m, m.kind == .object else { return nil }
        return dropping(paths, objectAt: m.value, buf)
    }

    /// The object at `range` with the `paths` of `privacy.drop_properties` removed, when any were.
    mutating func dropping(_ paths: [[String]], objectAt range: Range<Int>, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let result = DropPaths.removing(paths, objectAt: range, buf) else { return nil }
        counts.propertiesDropped += result.removed
        return result.bytes
    }

    /// What the context rules do to an event's own context, when it is simple enough to say
    /// without an editor: nothing at all (it names its `library`), or only adding mr-replay's
    /// `library`. That is so when no context defaults and no context drop paths are configured,
    /// and its `app` and `os` are objects (or null) and its `device` is one without an
    /// advertisingId (or with a null one; or null), as SDKs send them: then no other rule
    /// changes it. Nil when the general path (``enrichContext(_:_:)``) is needed: for anything
    /// else, and for escaped keys in the context or its device. Inlined: called from a
    /// `mutating` method, a method on the preparer that is not inlined gets a copy of the whole
    /// preparer (about 1 KB) as its `self`.
    @inline(__always)
    mutating func contextFastPath(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> ContextFastPath? {
        guard defaults.isEmpty, drops.context.isEmpty else { return nil }
        @inline(__always) func isKey(_ m: JSONMember, _ word: StaticString) -> Bool {
            ByteWords.equal(UnsafeBufferPointer(rebasing: buf[m.key]), word)
        }
        var hasLibrary = false
        for i in ctx.members.indices {
            let m = ctx.members[i]
            if m.keyHasEscapes { return nil }
            if isKey(m, "app") || isKey(m, "os") {
                guard m.kind == .object || m.kind == .null else { return nil }
            } else if isKey(m, "device") {
                guard m.kind == .null || (m.kind == .object && Self.hasNoAdvertisingId(device: m, buf, skimmingInto: &scratch.device))
                else { return nil }
            } else if isKey(m, "library") {
                guard m.kind != .null else { return nil }
                hasLibrary = true
            }
        }
        return hasLibrary ? .unchanged : .addLibrary
    }

    /// Whether the `device` object `m` has no advertisingId for the advertising rules to judge:
    /// none, or only null ones, and no escaped key (which might spell one). `device` is scratch
    /// storage for its members. Not inlined: only contexts with a device call it.
    @inline(never)
    private static func hasNoAdvertisingId(
        device m: JSONMember, _ buf: UnsafeBufferPointer<UInt8>, skimmingInto device: inout ObjectLayout
    ) -> Bool {
        // The line was validated whole: the device object is skimmed, not validated again.
        guard ObjectLayout.skimNested(buf, m.value, reusing: &device) else { return false }
        for member in device.members {
            if member.keyHasEscapes { return false }
            if member.kind != .null, ByteWords.equal(UnsafeBufferPointer(rebasing: buf[member.key]), "advertisingId") { return false }
        }
        return true
    }

    /// The context ``contextFastPath(_:_:)`` renders, as an array; nil when the general path
    /// is needed.
    package mutating func contextWithLibraryOnly(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        switch contextFastPath(ctx, buf) {
        case .addLibrary: MemberValue.appendingLibrary(to: ctx).bytes(buf)
        case .unchanged: Array(buf[ctx.range])
        case nil: nil
        }
    }

    /// The enriched `context` object: mr-replay's `library` where the event names none, config
    /// defaults where missing, the advertising rules, then the context drop paths.
    package mutating func enrichContext(_ context: ObjectLayout?, _ buf: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], ContextFailure> {
        guard let ctx = context else {
            guard defaults.advertisingId != nil else { return .success(defaultContextJSON) }
            return .success(defaults.contextWithout(library: LibraryMember.json, removed: &counts.advertisingIdsRemoved))
        }
        // Reuse the scratch editor's storage; it drops `ctx` again before it is put back.
        var e = scratchContextEditor
        scratchContextEditor = ObjectEditor(ObjectLayout())
        defer {
            e.reset(ObjectLayout())
            scratchContextEditor = e
        }
        e.reset(ctx)
        if ctx.member("library", in: buf).map({ $0.kind == .null }) ?? true { e.set("library", raw: LibraryMember.json, in: buf) }
        if let f = merge(ctx, "app", defaults.app, buf, into: &e) { return .failure(f) }
        if let f = mergeDevice(ctx, buf, into: &e) { return .failure(f) }
        if let f = merge(ctx, "os", defaults.os, buf, into: &e) { return .failure(f) }
        fillScalar(ctx, "locale", defaults.locale, buf, into: &e)
        fillScalar(ctx, "timezone", defaults.timezone, buf, into: &e)
        var out: [UInt8] = []
        out.reserveCapacity(e.renderedCapacity)
        e.render(buf, into: &out)
        guard !drops.context.isEmpty else { return .success(out) }
        // The drop paths apply to the context as enriched (defaults included).
        let dropped = out.withUnsafeBufferPointer { dropping(drops.context, objectAt: 0..<$0.count, $0) }
        return .success(dropped ?? out)
    }

    /// Sets `context.<name>` to `value` when the event has none.
    private func fillScalar(_ ctx: ObjectLayout, _ name: String, _ value: [UInt8]?, _ buf: UnsafeBufferPointer<UInt8>, into e: inout ObjectEditor) {
        guard let value else { return }
        let m = ctx.member(name, in: buf)
        if m == nil || m?.kind == .null { e.set(name, raw: value, in: buf) }
    }

    /// Fills `context.<name>` (app, os) from `fill` where members are missing; returns the
    /// failure, if any.
    private func merge(
        _ ctx: ObjectLayout, _ name: String, _ fill: [(key: String, value: [UInt8])], _ buf: UnsafeBufferPointer<UInt8>,
        into e: inout ObjectEditor
    ) -> ContextFailure? {
        guard let m = ctx.member(name, in: buf), m.kind != .null else {
            if !fill.isEmpty { e.set(name, raw: ContextDefaultsJSON.object(fill), in: buf) }
            return nil
        }
        guard m.kind == .object, let nested = ObjectLayout.scanNested(buf, m.value) else {
            return ContextFailure(detail: "\"context.\(name)\" is not an object")
        }
        guard !fill.isEmpty else { return nil }
        var object = ObjectEditor(nested)
        for (k, v) in fill where nested.member(k, in: buf) == nil { object.set(k, raw: v, in: buf) }
        if object.hasEdits { e.set(name, raw: object.rendered(buf), in: buf) }
        return nil
    }

    /// `context.device` with the config's members filled in where missing and the advertising
    /// rules applied to its advertisingId, whether the event's own or the config's.
    private mutating func mergeDevice(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, into e: inout ObjectEditor) -> ContextFailure? {
        let contextStatus = TrackingStatus(ctx.member("att_status", in: buf), buf)
        guard let m = ctx.member("device", in: buf), m.kind != .null else {
            let fill = defaults.deviceDefaults(contextStatus: contextStatus, removed: &counts.advertisingIdsRemoved)
            if !fill.isEmpty { e.set("device", raw: ContextDefaultsJSON.object(fill), in: buf) }
            return nil
        }
        guard m.kind == .object, let nested = ObjectLayout.scanNested(buf, m.value) else {
            return ContextFailure(detail: "\"context.device\" is not an object")
        }
        var device = ObjectEditor(nested)
        for (k, v) in defaults.device where nested.member(k, in: buf) == nil { device.set(k, raw: v, in: buf) }
        // An explicit null (the Android SDK writes `"advertisingId":null` without a GAID) is no
        // advertisingId: kept as written, not counted as removed.
        let own = nested.member("advertisingId", in: buf).flatMap { $0.kind == .null ? nil : $0 }
        if own != nil || defaults.advertisingId != nil {
            let enabled = ConsentRules.literal(nested, "adTrackingEnabled", buf) ?? defaults.adTrackingEnabled
            let status = TrackingStatus(nested.member("trackingStatus", in: buf), buf) ?? defaults.trackingStatus ?? contextStatus
            let allowed: Bool
            if let own {
                allowed = own.kind == .string && AdvertisingRules.allows(buf, own.value, adTrackingEnabled: enabled, status: status)
            } else {
                allowed = AdvertisingRules.allows(quoted: defaults.advertisingId!, adTrackingEnabled: enabled, status: status)
            }
            if !allowed {
                if own != nil { device.remove("advertisingId", in: buf) }
                counts.advertisingIdsRemoved += 1
            } else if own == nil {
                device.set("advertisingId", raw: defaults.advertisingId!, in: buf)
            }
        }
        if device.hasEdits { e.set("device", raw: device.rendered(buf), in: buf) }
        return nil
    }
}

/// What happens to an event's own context on the fast path (``LinePreparer/contextFastPath(_:_:)``).
enum ContextFastPath {
    /// Kept byte for byte: it names its own `library`.
    case unchanged
    /// mr-replay's `library` member is appended.
    case addLibrary
}
