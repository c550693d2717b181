import JSONCore

/// The ids of an mParticle batch, read from either form of `user_identities`: the outbound
/// array of `{"identity_type": ..., "identity": ...}` or the raw feed's (inbound) object of
/// `type: identity`.
struct MParticleIdentities {
    /// `customer_id`.
    var customerId = Piece.absent
    /// `email`.
    var email = Piece.absent

    /// The identities of the batch's `user_identities` value.
    init(_ record: Record, _ value: ValueRef?, _ work: inout Workspace) {
        guard let value else { return }
        let buf = record.bytes
        switch value.kind {
        case .array:
            for item in ArrayItems(buf, value.range) where item.kind == .object {
                guard Workspace.skim(record, item, into: &work.inner2) else { continue }
                let type = work.inner2.member("identity_type", in: buf)
                let identity = work.inner2.member("identity", in: buf)
                guard let type, type.kind == .string, let identity else { continue }
                take(buf, type.value, ValueRef(identity))
            }
        case .object:
            guard Workspace.skim(record, value, into: &work.inner2) else { return }
            for m in work.inner2.members {
                take(buf, m.key.lowerBound - 1..<m.key.upperBound + 1, ValueRef(m))
            }
        default: return
        }
    }

    private mutating func take(_ buf: UnsafeBufferPointer<UInt8>, _ type: Range<Int>, _ identity: ValueRef) {
        if RecordText.equals(buf, type, "customer_id") {
            customerId = .id(identity)
        } else if RecordText.equals(buf, type, "email") {
            email = .id(identity)
        }
    }
}
