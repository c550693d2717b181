import JSONCore

/// The values of an object's members sorted by a ``KeyTable``: `found[f]` is the value of the
/// last member whose key is the table's name `f`, nil when there is none or it is `null`. The
/// sorted members stay available in order, each with its field number.
struct Found {
    /// Per field: its value, valid when its generation is the current one (so that a new sort
    /// need not clear every field).
    private var values = [(ValueRef, UInt32)](repeating: (ValueRef(range: 0..<0, kind: .null), 0), count: 64)
    private var generation: UInt32 = 0
    /// The sorted members, in order.
    private(set) var members: [MemberRef] = []
    /// The field number of each member of ``members`` (-1: none of the table's names).
    private(set) var fieldOfMember: [Int16] = []

    /// Starts a sort by `table`.
    private mutating func start(_ table: KeyTable) {
        if values.count < table.count {
            values = [(ValueRef, UInt32)](repeating: (ValueRef(range: 0..<0, kind: .null), 0), count: table.count)
        }
        generation &+= 1
        if generation == 0 {  // wrapped: every stored generation might look current
            for k in values.indices { values[k].1 = 0 }
            generation = 1
        }
        members.removeAll(keepingCapacity: true)
        fieldOfMember.removeAll(keepingCapacity: true)
    }

    /// Sorts `members` by `table`, reading them to their end.
    mutating func sort<I: IteratorProtocol>(_ members: inout I, by table: KeyTable, in buffer: UnsafeBufferPointer<UInt8>)
    where I.Element == MemberRef {
        start(table)
        let g = generation
        values.withUnsafeMutableBufferPointer { values in
            while let m = members.next() {
                let f = table.field(of: m, in: buffer)
                if let f { values[f] = (m.value, g) }
                self.members.append(m)
                fieldOfMember.append(Int16(f ?? -1))
            }
        }
    }

    /// Sorts the members of a layout by `table`.
    mutating func sort(layout members: [JSONMember], by table: KeyTable, in buffer: UnsafeBufferPointer<UInt8>) {
        start(table)
        let g = generation
        self.members.reserveCapacity(members.count)
        fieldOfMember.reserveCapacity(members.count)
        values.withUnsafeMutableBufferPointer { values in
            members.withUnsafeBufferPointer { members in
                for jm in members {
                    let m = MemberRef(jm)
                    let f = table.field(of: m, in: buffer)
                    if let f { values[f] = (m.value, g) }
                    self.members.append(m)
                    fieldOfMember.append(Int16(f ?? -1))
                }
            }
        }
    }

    /// The value of field `f` of a recipe's field enumeration; nil when absent or `null`.
    @inline(__always)
    subscript<F: RawRepresentable>(_ f: F) -> ValueRef? where F.RawValue == Int { self[f.rawValue] }

    /// The value of field number `f`; nil when absent or `null`.
    @inline(__always)
    subscript(_ f: Int) -> ValueRef? {
        let (v, g) = values[f]
        return g == generation && v.kind != .null ? v : nil
    }
}
