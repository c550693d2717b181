/// A line as the reading side records it: owned, so it can wait for a batched record.
struct ReadLine {
    let input: Int
    let sequence: UInt64
    /// The line's number (a `read_error`'s: the first line not read), for dead letters.
    let lineNumber: Int
    /// Where the input's settled prefix ends once this line settles (``LineWalker/Item/settledThrough``).
    let settledOffset: UInt64
    let settledLineNumber: Int
    let fileBytesRead: UInt64
    /// False for all but the last event made from one input line (``InputLine/endsLine``).
    let endsLine: Bool
    /// The outcome; an event's range is in the reading job's current chunk storage.
    let result: LineOutcome<RenderedEvent>
    /// The raw line of a dead letter (copied: the reader's buffer moves on).
    let raw: [UInt8]?

    init(_ item: LineWalker.Item) {
        input = item.inputIndex
        sequence = item.sequence
        lineNumber = item.line.lineNumber
        settledOffset = item.settledThrough.offset
        settledLineNumber = item.settledThrough.lineNumber
        fileBytesRead = item.line.fileBytesRead
        endsLine = item.line.endsLine
        result = item.result
        if case .deadLetter = item.result { raw = Array(item.line.bytes) } else { raw = nil }
    }
}
