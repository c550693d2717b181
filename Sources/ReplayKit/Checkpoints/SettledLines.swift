/// Line numbers of one input that an earlier run settled past its checkpoint: events delivered
/// (or dead-lettered) while an event before them was still pending when the run stopped.
///
/// The checkpoint can only pass a settled prefix, so without these a resumed run would send
/// those events a second time. It reads and enriches them again (so the identities they teach
/// are learned as before) and counts them `already_delivered` instead of sending them.
///
/// Stored in the checkpoint as closed `[first, last]` ranges, sorted and disjoint.
struct SettledLines: Sendable, Equatable {
    /// The ranges, sorted by `first`, disjoint and not adjacent.
    private(set) var ranges: [ClosedRange<Int>]

    /// The lines of `pairs` (`[first, last]` each), or `nil` when there are none or a pair is
    /// malformed (then nothing is skipped: sending twice is safer than not sending).
    init?(pairs: [[Int]]?) {
        guard let pairs, !pairs.isEmpty else { return nil }
        var ranges: [ClosedRange<Int>] = []
        for pair in pairs {
            guard pair.count == 2, pair[0] <= pair[1], pair[0] > (ranges.last?.upperBound ?? 0) else { return nil }
            ranges.append(pair[0]...pair[1])
        }
        self.ranges = ranges
    }

    /// The ranges of a sorted sequence of line numbers (repeats allowed).
    init?(sortedLines lines: [Int]) {
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
    var pairs: [[Int]] { ranges.map { [$0.lowerBound, $0.upperBound] } }

    /// Whether `line` is one of them (binary search).
    func contains(_ line: Int) -> Bool {
        var low = 0, high = ranges.count
        while low < high {
            let mid = (low + high) / 2
            if ranges[mid].upperBound < line { low = mid + 1 } else { high = mid }
        }
        return low < ranges.count && ranges[low].contains(line)
    }
}
