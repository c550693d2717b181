/// A line as the reading side records it: owned, so it can wait for a batched record.
struct ReadLine {
    let input: Int
    let sequence: UInt64
    let lineNumber: Int
    let endOffset: UInt64
    let fileBytesRead: UInt64
    let result: EnrichResult
    /// The raw line of a dead letter (copied: the reader's buffer moves on).
    let raw: [UInt8]?

    init(_ item: LineWalker.Item) {
        input = item.inputIndex
        sequence = item.sequence
        lineNumber = item.line.lineNumber
        endOffset = item.line.endOffset
        fileBytesRead = item.line.fileBytesRead
        result = item.result
        if case .deadLetter = item.result { raw = Array(item.line.bytes) } else { raw = nil }
    }
}
