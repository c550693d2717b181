/// One event made from one record of a delimited file.
package struct CSVEvent: Sendable, Equatable {
    /// The record's number (the header is record 1, so the first event is record 2).
    package var number: Int
    /// The file offset of the record's first byte: where a resumed reader may start.
    package var start: Int
    /// The file offset just past the record's line break.
    package var end: Int
    /// The event, a compact JSON object.
    package var json: [UInt8]

    /// An event.
    package init(number: Int, start: Int, end: Int, json: [UInt8]) {
        self.number = number
        self.start = start
        self.end = end
        self.json = json
    }
}
