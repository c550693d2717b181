import Foundation
import JSONCore

/// Config context defaults, encoded once.
struct ContextDefaultsJSON {
    var app: [(key: String, value: [UInt8])] = []
    var device: [(key: String, value: [UInt8])] = []
    var os: [(key: String, value: [UInt8])] = []
    var locale: [UInt8]?
    var timezone: [UInt8]?

    init(_ c: ReplayConfig.ContextDefaults) {
        func encode(_ o: JSONObject?) -> [(key: String, value: [UInt8])] {
            (o?.members ?? []).map { ($0.key, JSONValue.encoded($0.value)) }
        }
        app = encode(c.app)
        device = encode(c.device)
        os = encode(c.os)
        locale = c.locale.map(JSONStrings.quoted)
        timezone = c.timezone.map(JSONStrings.quoted)
    }

    /// Whether no context default is configured.
    var isEmpty: Bool { app.isEmpty && device.isEmpty && os.isEmpty && locale == nil && timezone == nil }

    /// The `context` object for an event without one: `library` plus every configured default.
    func contextWithout(library: [UInt8]) -> [UInt8] {
        var members: [(key: String, value: [UInt8])] = [("library", library)]
        if !app.isEmpty { members.append(("app", ContextDefaultsJSON.object(app))) }
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
struct ContextFailure: Error {
    let detail: String
}

extension LinePreparer {
    /// Why consent forbids sending, if it does: `context.consent.isUserSubjectToGDPR` is `true`
    /// and `context.consent.hasConsentForDataUsage` is not `true`.
    func consentDenial(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> String? {
        guard let c = ctx.member("consent", in: buf), c.kind == .object,
            let consent = ObjectLayout.scanNested(buf, c.value)
        else { return nil }
        guard literal(consent, "isUserSubjectToGDPR", buf) == true else { return nil }
        guard literal(consent, "hasConsentForDataUsage", buf) != true else { return nil }
        return "context.consent.isUserSubjectToGDPR is true and context.consent.hasConsentForDataUsage is not true"
    }

    /// `object`'s member `key` with the `privacy.drop_properties` keys removed, when any were.
    mutating func dropKeys(_ object: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !config.privacy.dropProperties.isEmpty else { return nil }
        return dropKeys(object.member(key, in: buf), buf)
    }

    /// `m`'s value with the `privacy.drop_properties` keys removed, when it is an object and any were.
    mutating func dropKeys(_ m: JSONMember?, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let drop = config.privacy.dropProperties
        guard !drop.isEmpty, let m, m.kind == .object,
            let nested = ObjectLayout.scanNested(buf, m.value)
        else { return nil }
        var e = ObjectEditor(nested)
        var dropped = 0
        for name in drop where e.remove(name, in: buf) { dropped += 1 }
        guard dropped > 0 else { return nil }
        counts.propertiesDropped += dropped
        return e.rendered(buf)
    }

    /// The enriched `context` object: library, config defaults where missing, privacy rules.
    mutating func enrichContext(_ context: ObjectLayout?, _ buf: UnsafeBufferPointer<UInt8>) -> Result<[UInt8], ContextFailure> {
        guard let ctx = context else { return .success(defaultContextJSON) }
        // Reuse the scratch editor's storage; it drops `ctx` again before it is put back.
        var e = scratchContextEditor
        scratchContextEditor = ObjectEditor(ObjectLayout())
        defer {
            e.reset(ObjectLayout())
            scratchContextEditor = e
        }
        e.reset(ctx)
        e.set("library", raw: libraryJSON, in: buf)
        if let f = merge(ctx, "app", defaults.app, buf, into: &e) { return .failure(f) }
        if let f = merge(ctx, "device", defaults.device, buf, into: &e) { return .failure(f) }
        if let f = merge(ctx, "os", defaults.os, buf, into: &e) { return .failure(f) }
        fillScalar(ctx, "locale", defaults.locale, buf, into: &e)
        fillScalar(ctx, "timezone", defaults.timezone, buf, into: &e)
        if let traits = dropKeys(ctx, "traits", buf) { e.set("traits", raw: traits, in: buf) }
        var out: [UInt8] = []
        out.reserveCapacity(e.renderedCapacity)
        e.render(buf, into: &out)
        return .success(out)
    }

    /// Whether adding `library` is the only rule that applies to the event's context `ctx`: no
    /// context defaults or privacy drops are configured and the context has no `library`, `app`,
    /// `device` or `os` member (and no escaped keys). Then the context is rendered straight into
    /// the output (``MemberValue/contextWithLibrary(_:library:)``): its members' spans joined by commas,
    /// then `library`, exactly what the general path renders, without an editor or an array.
    func libraryIsTheOnlyContextEdit(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> Bool {
        guard defaults.isEmpty, config.privacy.dropProperties.isEmpty else { return false }
        @inline(__always) func isKey(_ m: JSONMember, _ word: StaticString) -> Bool {
            guard m.key.count == word.utf8CodeUnitCount else { return false }
            return memcmp(buf.baseAddress! + m.key.lowerBound, word.utf8Start, m.key.count) == 0
        }
        for i in ctx.members.indices {
            let m = ctx.members[i]
            if m.keyHasEscapes || isKey(m, "library") || isKey(m, "app") || isKey(m, "device") || isKey(m, "os") {
                return false
            }
        }
        return true
    }

    /// The context ``libraryIsTheOnlyContextEdit(_:_:)`` renders, as an array; nil when the
    /// general path is needed.
    func contextWithLibraryOnly(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard libraryIsTheOnlyContextEdit(ctx, buf) else { return nil }
        return MemberValue.contextWithLibrary(ctx, library: libraryMemberJSON).bytes(buf)
    }

    /// Sets `context.<name>` to `value` when the event has none.
    private func fillScalar(_ ctx: ObjectLayout, _ name: String, _ value: [UInt8]?, _ buf: UnsafeBufferPointer<UInt8>, into e: inout ObjectEditor) {
        guard let value else { return }
        let m = ctx.member(name, in: buf)
        if m == nil || m?.kind == .null { e.set(name, raw: value, in: buf) }
    }

    /// Applies ``mergeObject(_:_:_:_:)`` to `e`; returns the failure, if any.
    private mutating func merge(
        _ ctx: ObjectLayout, _ name: String, _ fill: [(key: String, value: [UInt8])], _ buf: UnsafeBufferPointer<UInt8>,
        into e: inout ObjectEditor
    ) -> ContextFailure? {
        if fill.isEmpty && name != "device" {
            // Nothing to fill: only the shape matters.
            if let m = ctx.member(name, in: buf), m.kind != .null, m.kind != .object {
                return ContextFailure(detail: "\"context.\(name)\" is not an object")
            }
            return nil
        }
        switch mergeObject(ctx, name, fill, buf) {
        case .success(let bytes?): e.set(name, raw: bytes, in: buf)
        case .success(nil): break
        case .failure(let f): return f
        }
        return nil
    }

    /// `context.<name>` with missing members filled from `fill` (and, for `device`, the
    /// advertisingId rules applied); nil when nothing changes.
    private mutating func mergeObject(
        _ ctx: ObjectLayout, _ name: String, _ fill: [(key: String, value: [UInt8])], _ buf: UnsafeBufferPointer<UInt8>
    ) -> Result<[UInt8]?, ContextFailure> {
        guard let m = ctx.member(name, in: buf), m.kind != .null else {
            return .success(fill.isEmpty ? nil : ContextDefaultsJSON.object(fill))
        }
        guard m.kind == .object, let nested = ObjectLayout.scanNested(buf, m.value) else {
            return .failure(ContextFailure(detail: "\"context.\(name)\" is not an object"))
        }
        var e = ObjectEditor(nested)
        for (k, v) in fill where nested.member(k, in: buf) == nil { e.set(k, raw: v, in: buf) }
        if name == "device", let ad = nested.member("advertisingId", in: buf) {
            var remove = ad.kind != .string || !Self.isUsableAdvertisingId(buf, ad.value)
            if literal(nested, "adTrackingEnabled", buf) == false { remove = true }
            if let status = nonEmptyString(nested, "trackingStatus", buf) ?? nonEmptyString(ctx, "att_status", buf),
                status.lowercased() != "authorized"
            {
                remove = true
            }
            if remove {
                e.remove("advertisingId", in: buf)
                counts.advertisingIdsRemoved += 1
            }
        }
        return .success(e.hasEdits ? e.rendered(buf) : nil)
    }

    /// Whether the string value at `range` (with quotes) is a UUID that is not all zeros.
    static func isUsableAdvertisingId(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard range.count == 38 else { return false }
        var nonZero = false
        for (i, p) in ((range.lowerBound + 1)..<(range.upperBound - 1)).enumerated() {
            let c = buf[p]
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == UInt8(ascii: "-") else { return false }
                continue
            }
            let isHex = (48...57).contains(c) || (97...102).contains(c) || (65...70).contains(c)
            guard isHex else { return false }
            if c != UInt8(ascii: "0") { nonZero = true }
        }
        return nonZero
    }
}
