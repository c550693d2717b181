import DequeModule

/// Tracks which read lines are settled, and where the settled prefix of each input ends.
///
/// Every line read gets the next sequence number. Blank, filtered and dead-lettered lines
/// settle at once; sent events settle when the engine reports them delivered or given up.
/// The low-watermark is the last sequence number before which everything is settled: the
/// checkpoint may advance exactly that far, and never past an event still in flight.
///
/// A line is settled when all its entries are: one per event it holds, in sequence order, all
/// but the last with `endsLine` false (a SimpleAnalytics payload's items); most lines have one.
///
/// Not thread-safe on its own: ``ReplayRunner`` keeps it behind a mutex.
package struct SettlementTracker {
    /// An empty one.
    package init() {}

    /// A line that is read but not yet passed by the low-watermark.
    package struct Entry {
        var input: Int
        var endOffset: UInt64
        package var lineNumber: Int
        package var settled: Bool
        /// False for all but the last entry of a line that holds several events.
        var endsLine = true
    }

    /// Where the settled prefix of one input ends.
    package struct Position: Equatable, Sendable {
        package var offset: UInt64
        package var lineNumber: Int

        /// The position after `lineNumber`, at byte `offset`.
        package init(offset: UInt64, lineNumber: Int) {
            self.offset = offset
            self.lineNumber = lineNumber
        }
    }

    private var entries: Deque<Entry> = []
    private var firstSequence: UInt64 = 0
    private(set) var nextSequence: UInt64 = 0
    /// The settled position of each input that has moved.
    package private(set) var positions = InputPositions()

    /// Sequence numbers below this are all settled.
    package var watermark: UInt64 { firstSequence }

    /// Number of lines read but not yet settled or not yet passed by the watermark.
    package var outstanding: Int { entries.count }

    /// Records a read line and returns its sequence number.
    ///
    /// The front entry is never settled between calls (``advance()`` drops a settled prefix), so
    /// appending behind it changes no watermark; a settled line with nothing before it in
    /// flight moves the watermark and its input's position at once, without an entry.
    /// `lineNumber` is where the input's settled prefix ends once this entry settles: for the
    /// last (or only) entry of a line, that line's number.
    package mutating func append(input: Int, endOffset: UInt64, lineNumber: Int, settled: Bool, endsLine: Bool = true) -> UInt64 {
        let seq = nextSequence
        nextSequence += 1
        if settled, entries.isEmpty {
            firstSequence += 1
            positions[input] = Position(offset: endOffset, lineNumber: lineNumber)
            return seq
        }
        entries.append(Entry(input: input, endOffset: endOffset, lineNumber: lineNumber, settled: settled, endsLine: endsLine))
        return seq
    }

    /// Marks `sequence` settled, like ``settle(_:)``, and says which line that completed, if any:
    /// the last of its line's entries to settle completes it. `nil` when `sequence` was unknown
    /// or already settled.
    package mutating func settleLine(_ sequence: UInt64) -> (input: Int, completedLine: Int?)? {
        guard sequence >= firstSequence, sequence < nextSequence else { return nil }
        let index = Int(sequence - firstSequence)
        guard !entries[index].settled else { return nil }
        let completed = lineCompleted(settling: index)
        entries[index].settled = true
        let input = entries[index].input
        if index == 0 { advance() }
        return (input, completed)
    }

    /// The number of the line the entry at `index` belongs to, when settling it settles the
    /// line: every other entry of the line is settled (those the watermark passed are), and its
    /// last entry was recorded.
    private func lineCompleted(settling index: Int) -> Int? {
        if entries[index].endsLine, index == 0 || entries[index - 1].endsLine { return entries[index].lineNumber }
        var before = index - 1
        while before >= 0, !entries[before].endsLine {
            if !entries[before].settled { return nil }
            before -= 1
        }
        var last = index
        while !entries[last].endsLine {
            last += 1
            if last == entries.count || !entries[last].settled { return nil }
        }
        return entries[last].lineNumber
    }

    /// Marks `sequence` settled and returns its input, or `nil` when it was unknown or already
    /// settled.
    @discardableResult
    package mutating func settle(_ sequence: UInt64) -> Int? {
        guard sequence >= firstSequence, sequence < nextSequence else { return nil }
        let index = Int(sequence - firstSequence)
        guard !entries[index].settled else { return nil }
        entries[index].settled = true
        let input = entries[index].input
        if index == 0 { advance() }
        return input
    }

    /// The entry of `sequence` (its input and line), if it is not yet passed by the watermark.
    package func entry(_ sequence: UInt64) -> Entry? {
        guard sequence >= firstSequence, sequence < nextSequence else { return nil }
        return entries[Int(sequence - firstSequence)]
    }

    /// The settled lines past the watermark, by input: a line counts when every entry it has
    /// (one per event it holds) is settled, its last one included. Entries of one input are in
    /// line order.
    package func settledPastWatermark() -> [Int: SettledLines] {
        var lines: [Int: [Int]] = [:]
        var allSettled = true  // of the line whose entries are being read
        for entry in entries {
            allSettled = allSettled && entry.settled
            guard entry.endsLine else { continue }
            if allSettled { lines[entry.input, default: []].append(entry.lineNumber) }
            allSettled = true
        }
        return lines.compactMapValues { SettledLines(sortedLines: $0) }
    }

    /// Drops the settled prefix, remembering where it ends in each input it touched (one
    /// dictionary write per input, not per line).
    private mutating func advance() {
        var input = -1
        var position = Position(offset: 0, lineNumber: 0)
        while !entries.isEmpty, entries[entries.startIndex].settled {
            let first = entries.removeFirst()
            if first.input != input {
                if input >= 0 { positions[input] = position }
                input = first.input
            }
            position = Position(offset: first.endOffset, lineNumber: first.lineNumber)
            firstSequence += 1
        }
        if input >= 0 { positions[input] = position }
    }
}

/// The settled position of each input, by input index: an array, since inputs are numbered
/// from 0 and the reader moves one position per settled line.
package struct InputPositions: Sendable {
    private var storage: [SettlementTracker.Position?] = []

    /// Whether no input has moved.
    package var isEmpty: Bool { !storage.contains { $0 != nil } }

    /// The position of input `index`, if it has moved.
    package subscript(index: Int) -> SettlementTracker.Position? {
        get { index < storage.count ? storage[index] : nil }
        set {
            if index >= storage.count { storage.append(contentsOf: repeatElement(nil, count: index + 1 - storage.count)) }
            storage[index] = newValue
        }
    }
}
