/// Line numbers of one input that an earlier run settled past its checkpoint: events delivered
/// (or dead-lettered) while an event before them was still pending when the run stopped.
///
/// The checkpoint can only pass a settled prefix, so without these a resumed run would send
/// those events a second time. It reads and enriches them again (so the identities they teach
/// are learned as before) and counts them `already_delivered` instead of sending them.
///
/// Stored in the checkpoint as closed `[first, last]` ranges, sorted and disjoint.
package struct SettledLines: Sendable, Equatable {
    /// The ranges, sorted by `first`, disjoint and not adjacent.
    private(set) var ranges: [ClosedRange<Int>]

    /// The lines of `pairs` (`[first, last]` each), or `nil` when there are none or a pair is
    /// malformed (then nothing is skipped: sending twice is safer than not sending).
    package init?(pairs: [[Int]]?) {
        guard let pairs, !pairs.isEmpty else { return nil }
        var ranges: [ClosedRange<Int>] = []
        for pair in pairs {
            guard pair.count == 2, pair[0] <= pair[1], pair[0] > (ranges.last?.upperBound ?? 0) else { return nil }
            ranges.append(pair[0]...pair[1])
        }
        self.ranges = ranges
    }

    /// The ranges of a sorted sequence of line numbers (repeats allowed).
    package init?(sortedLines lines: [Int]) {
        var ranges: [ClosedRange<Int>] = []
        for line in lines {
            if let last = ranges.last, line <= last.upperBound + 1 {
                if line > last.upperBound { ranges[ranges.count - 1] = last.lowerBound...line }
            } else {
                ranges.append(line...line)
            }
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
    }

    /// The `[first, last]` pairs the checkpoint stores.
    package var pairs: [[Int]] { ranges.map { [$0.lowerBound, $0.upperBound] } }

    /// Whether `line` is one of them (binary search).
    package func contains(_ line: Int) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < line { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].contains(line)
    }
}

extension SettledLines {
    /// The lines of `a` and `b` together, or nil when both are nil.
    static func union(_ a: SettledLines?, _ b: SettledLines?) -> SettledLines? {
        guard let a else { return b }
        guard let b else { return a }
        var merged: [ClosedRange<Int>] = []
        merged.reserveCapacity(a.ranges.count + b.ranges.count)
        var i = 0, j = 0
        while i < a.ranges.count || j < b.ranges.count {
            let next: ClosedRange<Int>
            if j == b.ranges.count || (i < a.ranges.count && a.ranges[i].lowerBound <= b.ranges[j].lowerBound) {
                next = a.ranges[i]
                i += 1
            } else {
                next = b.ranges[j]
                j += 1
            }
            if let last = merged.last, next.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, next.upperBound)
            } else {
                merged.append(next)
            }
        }
        return SettledLines(ranges: merged)
    }

    /// The lines after `line`, or nil when there are none.
    func after(_ line: Int) -> SettledLines? {
        var kept: [ClosedRange<Int>] = []
        for range in ranges where range.upperBound > line {
            kept.append(max(range.lowerBound, line + 1)...range.upperBound)
        }
        return kept.isEmpty ? nil : SettledLines(ranges: kept)
    }

    /// How many lines they hold.
    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    private init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }
}
