import JSONCore

/// Streams the elements of a file that is one JSON array (`[ {...}, {...} ]`, any whitespace,
/// pretty-printed or not), one element at a time, in memory bounded by the largest element:
/// the file is never loaded whole. Each element is validated (RFC 8259, with JSONCore's
/// scanner) and handed out with its index, its byte range and its bytes. The array's structure
/// is checked as the reader goes; whitespace after `]` is allowed, anything else is an error.
/// Used by one thread at a time.
package final class JSONArrayReader {
    /// Where the reader is in the array's grammar.
    enum State {
        /// Before `[` (whitespace and a byte order mark allowed).
        case beforeArray
        /// After `[`: an element or `]`.
        case elementOrClose
        /// After `,` (or at a resumed element's start): an element.
        case element
        /// After an element: `,` or `]`.
        case afterElement
        /// After `]`: only whitespace.
        case afterArray
    }

    /// The longest element accepted, in bytes.
    package let maximumElementBytes: Int
    private let window: SourceWindow
    private var state: State
    private var nextIndex: Int
    private var boundary = ElementBoundary()
    private var atFileStart: Bool

    /// A reader of a source that starts at `position` in the file.
    package init(position: JSONArrayPosition = .fileStart, maximumElementBytes: Int = 1 << 20, pieceSize: Int = 64 << 10) {
        self.maximumElementBytes = max(maximumElementBytes, 1)
        let offset: Int
        switch position {
        case .fileStart:
            (offset, state, nextIndex) = (0, .beforeArray, 1)
        case .elementStart(let at, let index):
            (offset, state, nextIndex) = (at, .element, index)
        case .afterElement(let at, let index):
            (offset, state, nextIndex) = (at, .afterElement, index + 1)
        }
        atFileStart = position == .fileStart
        window = SourceWindow(
            capacity: min(pieceSize, self.maximumElementBytes + 1), maximumCapacity: self.maximumElementBytes + 1,
            offset: offset)
    }

    /// The file offset of the first byte not yet consumed.
    package var offset: Int { window.offset }

    /// The next element; nil after the array's `]` and the whitespace after it.
    /// - Throws: ``JSONArrayError``, or `pull`'s error.
    package func next(pull: PullBytes) throws -> JSONArrayElement? {
        if atFileStart {
            atFileStart = false
            if try window.require(3, pull: pull), window.byte(0) == 0xEF, window.byte(1) == 0xBB, window.byte(2) == 0xBF {
                window.consume(3)
            }
        }
        while true {
            guard let c = try nextNonWhitespace(pull: pull) else {
                if state == .afterArray { return nil }
                throw JSONArrayError.truncated(offset: window.offset, message: expectation)
            }
            switch (state, c) {
            case (.beforeArray, UInt8(ascii: "[")):
                window.consume(1)
                state = .elementOrClose
            case (.beforeArray, _):
                throw JSONArrayError.syntax(offset: window.offset, message: "expected '[' (the file must be one JSON array)")
            case (.elementOrClose, UInt8(ascii: "]")), (.afterElement, UInt8(ascii: "]")):
                window.consume(1)
                state = .afterArray
            case (.element, UInt8(ascii: "]")):
                throw JSONArrayError.syntax(offset: window.offset, message: "expected an element after ',', found ']'")
            case (.elementOrClose, _), (.element, _):
                let element = try readElement(pull: pull)
                state = .afterElement
                return element
            case (.afterElement, UInt8(ascii: ",")):
                window.consume(1)
                state = .element
            case (.afterElement, _):
                throw JSONArrayError.syntax(
                    offset: window.offset, message: "expected ',' or ']' after element \(nextIndex - 1)")
            case (.afterArray, _):
                throw JSONArrayError.trailingData(offset: window.offset)
            }
        }
    }

    /// What the reader expected where the file ended.
    private var expectation: String {
        switch state {
        case .beforeArray: return "before the array's '['"
        case .elementOrClose, .element: return "inside the array, where element \(nextIndex) should be"
        case .afterElement: return "inside the array, after element \(nextIndex - 1) (no ']')"
        case .afterArray: return "after the array"
        }
    }

    /// Consumes whitespace; returns the byte after it (not consumed), or nil at the end of the
    /// source.
    private func nextNonWhitespace(pull: PullBytes) throws -> UInt8? {
        while true {
            if window.available == 0, try window.fill(pull: pull) == 0 { return nil }
            let bytes = window.unconsumed
            var k = 0
            while k < bytes.count, bytes[k].isJSONWhitespace {
                k += 1
            }
            window.consume(k)
            if k < bytes.count { return bytes[k] }
        }
    }

    /// Reads the element at the window's first byte, pulling until its end is found, and
    /// validates it.
    private func readElement(pull: PullBytes) throws -> JSONArrayElement {
        let index = nextIndex
        let start = window.offset
        boundary.reset()
        var length: Int?
        while true {
            do {
                length = try boundary.scan(window.unconsumed, atEnd: window.sourceEnded)
            } catch {
                throw JSONArrayError.invalidElement(index: index, offset: start + error.offset, message: error.message)
            }
            if length != nil { break }
            if window.sourceEnded {
                throw JSONArrayError.truncated(
                    offset: window.offset + window.available, message: "inside element \(index), which starts at byte \(start)")
            }
            if window.available > maximumElementBytes {
                throw JSONArrayError.elementTooLarge(index: index, offset: start, limit: maximumElementBytes)
            }
            if try window.fill(pull: pull) == 0, !window.sourceEnded {
                throw JSONArrayError.elementTooLarge(index: index, offset: start, limit: maximumElementBytes)
            }
        }
        guard let length, length <= maximumElementBytes else {
            throw JSONArrayError.elementTooLarge(index: index, offset: start, limit: maximumElementBytes)
        }
        // The element's `length` bytes are unconsumed in the window (the scan found its end
        // there); the view is read before the window is touched again.
        let bytes = UnsafeBufferPointer(rebasing: window.unconsumed[0..<length])
        let kind: JSONKind
        do {
            kind = try JSONScanner.validate(bytes)
        } catch {
            let message = error.offset >= length ? "the element is cut short" : error.message
            throw JSONArrayError.invalidElement(index: index, offset: start + error.offset, message: message)
        }
        let element = JSONArrayElement(index: index, start: start, end: start + length, bytes: Array(bytes), kind: kind)
        window.consume(length)
        nextIndex += 1
        return element
    }
}
