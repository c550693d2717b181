import JSONCore

/// Writing the event as compact JSON.
extension EventDocument {
    /// Appends the event to `out` as compact JSON: values still in the source are copied from
    /// it (without whitespace between tokens), the others written from their trees.
    func render(into out: inout [UInt8]) {
        if !isEdited && sourceIsCompact {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: source[objectRange]))
            return
        }
        out.reserveCapacity(out.count + objectRange.count + 2)
        renderObject(0, into: &out)
    }

    /// Appends listed object `o`.
    private func renderObject(_ o: Int, into out: inout [UInt8]) {
        let members = objects[o].members
        out.append(UInt8(ascii: "{"))
        var k = 0
        while k < members.count {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            if let run = compactRun(members, from: k) {
                // Consecutive members written compactly in the source: one copy.
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[run.bytes]))
                k = run.end
            } else {
                renderMember(members[k], into: &out)
                k += 1
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The longest run of `members` from `start` that the source holds as compact JSON, one
    /// after another with only commas between them: their bytes, and the index after the run.
    /// Nil when member `start` is not such a member.
    private func compactRun(_ members: [Member], from start: Int) -> (bytes: Range<Int>, end: Int)? {
        guard let first = compactSpan(members[start]) else { return nil }
        var bytes = first
        var end = start + 1
        // Two members of the source with one byte between them were neighbours: that byte is
        // their comma.
        while end < members.count, let next = compactSpan(members[end]), next.lowerBound == bytes.upperBound + 1 {
            bytes = bytes.lowerBound..<next.upperBound
            end += 1
        }
        return (bytes, end)
    }

    /// The bytes of `member` (from its key's opening quote to its value's end) when the source
    /// holds it as compact JSON: its key and value are still the source's, with only the colon
    /// between them, and the value is a scalar (or the source is compact).
    private func compactSpan(_ member: Member) -> Range<Int>? {
        guard case .source(let key, _) = member.key, case .source(let value, let kind) = member.slot,
            value.lowerBound == key.upperBound + 2, sourceIsCompact || (kind != .object && kind != .array)
        else { return nil }
        return (key.lowerBound - 1)..<value.upperBound
    }

    /// Appends one member, `"key":value`, compactly.
    private func renderMember(_ member: Member, into out: inout [UInt8]) {
        switch member.key {
        case .source(let range, _):
            // The key's content as it was written (escapes included) is valid inside quotes.
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: source[range]))
            out.append(UInt8(ascii: "\""))
        case .added(let key):
            JSONStrings.appendQuoted(addedKeys[key], to: &out)
        }
        out.append(UInt8(ascii: ":"))
        switch member.slot {
        case .tree(let t):
            JSONWriter.write(trees[t], into: &out)
        case .object(let k):
            renderObject(k, into: &out)
        case .source(let range, let kind):
            if sourceIsCompact || (kind != .object && kind != .array) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: source[range]))
            } else {
                CompactCopy.append(source, range, into: &out)
            }
        }
    }
}
