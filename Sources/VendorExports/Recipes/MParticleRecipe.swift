import JSONCore

/// mParticle event batches, one per line (its S3 and other raw-JSON outputs): the outbound form
/// (`user_identities` an array, 64-bit integers often strings) and the raw feed's inbound form
/// (`user_identities` an object, plain numbers). Each mParticle event of `events` becomes one
/// Segment event. See docs/recipes.md.
enum MParticleRecipe {
    /// The batch-level fields the recipe reads.
    enum Field: Int, CaseIterable {
        /// The batch members the recipe reads.
        case events, userIdentities, userAttributes, deviceInfo, applicationInfo, mpid, ip, context, mpDeviceId

        /// The field's key.
        var key: String {
            switch self {
            case .events: return "events"
            case .userIdentities: return "user_identities"
            case .userAttributes: return "user_attributes"
            case .deviceInfo: return "device_info"
            case .applicationInfo: return "application_info"
            case .mpid: return "mpid"
            case .ip: return "ip"
            case .context: return "context"
            case .mpDeviceId: return "mp_deviceid"
            }
        }
    }

    private static let table = KeyTable(Field.allCases.map(\.key))

    /// Plans and writes one Segment event per mParticle event of the batch (none for session
    /// markers, and none for a batch without events).
    static func convert(_ record: Record, _ work: inout Workspace, _ out: inout [UInt8], _ events: inout [Range<Int>])
        throws(RecipeFailure)
    {
        let buf = record.bytes
        work.collect(table, from: .top, in: buf)
        let found = work.found
        guard let list = found[Field.events] else { return }
        guard list.kind == .array else { throw .invalid(.mparticle, "events", "is not an array") }
        let ids = MParticleIdentities(record, found[Field.userIdentities], &work)
        let batch = try batchIdentity(record, found, ids, &work)
        work.startEvent()
        MParticleContext.fill(record, found, &work)
        work.context[.traits] = traits(record, found[Field.userAttributes], ids.email, &work)
        work.context[.externalIds] = externalIds(found[Field.mpid], &work)
        let batchContext = work.context
        var items = ArrayWalker(buf, openingAt: list.range.lowerBound)
        var index = 0
        while let item = items.next() {
            defer { index += 1 }
            guard item.kind == .object else { throw .invalid(.mparticle, "events[\(index)]", "is not an object") }
            // Each event starts from the batch's context (an event's location and connection
            // override the batch's for that event only).
            work.context.restore(batchContext)
            work.startEvent(keepingContext: true)
            work.plan.userId = batch.userId
            work.plan.anonymousId = batch.anonymousId
            let (planned, end) = try MParticleEvent.plan(record, index: index, openingAt: item.start, &work)
            items.resume(at: end)
            guard planned else { continue }
            work.plan.context = work.contextPiece
            work.render(buf, into: &out, events: &events)
        }
    }

    /// userId (`customer_id`) and anonymousId (`mp_deviceid`, else the device's IDFV or Android
    /// id, else `mpid`, exact as a string).
    private static func batchIdentity(_ record: Record, _ found: Found, _ ids: MParticleIdentities, _ work: inout Workspace)
        throws(RecipeFailure) -> (userId: Piece, anonymousId: Piece)
    {
        var anonymous = found[Field.mpDeviceId].map { Piece.id($0) } ?? .absent
        if !anonymous.isPresent, let device = found[Field.deviceInfo] {
            var idfv: Piece = .absent
            var androidId: Piece = .absent
            for m in ObjectMembers(record.bytes, device) {
                if RecordText.keyIs(record.bytes, m, "ios_idfv") { idfv = .id(m.value) }
                if RecordText.keyIs(record.bytes, m, "android_uuid") { androidId = .id(m.value) }
            }
            anonymous = idfv.isPresent ? idfv : androidId
        }
        if !anonymous.isPresent { anonymous = found[Field.mpid].map { Piece.id($0) } ?? .absent }
        guard ids.customerId.isPresent || anonymous.isPresent else {
            throw .missing(.mparticle, either: "user_identities.customer_id", or: "mpid")
        }
        return (ids.customerId, anonymous)
    }

    /// context.traits: `user_attributes` without nulls, and the `email` identity when the
    /// attributes have no `email`.
    private static func traits(_ record: Record, _ attributes: ValueRef?, _ email: Piece, _ work: inout Workspace) -> Piece {
        let mark = work.open()
        var hasEmail = false
        if let attributes {
            for m in ObjectMembers(record.bytes, attributes) where m.value.kind != .null {
                if RecordText.keyIs(record.bytes, m, "email") { hasEmail = true }
                work.addVerbatim(m)
            }
        }
        if !hasEmail { work.add("email", email) }
        return work.close(mark)
    }

    /// context.externalIds holding the batch's `mpid` (mParticle's user id), exact as a string.
    private static func externalIds(_ mpid: ValueRef?, _ work: inout Workspace) -> Piece {
        guard let mpid else { return .absent }
        let id = Piece.id(mpid)
        guard id.isPresent else { return .absent }
        let mark = work.open()
        work.add("id", id)
        work.add("type", .text("mparticle_mpid"))
        work.add("collection", .text("users"))
        work.add("encoding", .text("none"))
        let entry = work.close(mark)
        let list = work.openArray()
        work.addItem(entry)
        return work.closeArray(list)
    }
}
