// The `snapshot` fuzz target: MetaRouter's streaming snapshot reader on arbitrary bytes, on the
// same bytes wrapped as a snapshot in both key orders, and cut anywhere. See docs/fuzzing.md.
@_spi(PerLine) import MetaRouter

/// libFuzzer's entry point: called once per input, always from the same thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func snapshotFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SnapshotFuzz.run(fuzzInput(data, size))
    return 0
}

/// One fuzz input through every check.
enum SnapshotFuzz {
    static func run(_ input: [UInt8]) {
        var rng = FuzzRandom(seededBy: input)
        let events = Array("{\"version\":1,\"events\":[".utf8) + input + Array("]}".utf8)
        let eventsFirst = Array("{\"events\":[".utf8) + input + Array("],\"version\":1}".utf8)
        for document in [input, events, eventsFirst] {
            check(document, input: input, rng: &rng)
            let cut = rng.int(0...document.count)
            check(Array(document[..<cut]), input: input, rng: &rng)
        }
    }

    /// What one walk handed over.
    struct Walk: Equatable {
        var summary: SnapshotReader.Summary
        var elements: [[UInt8]]
        var ranges: [Range<UInt64>]
        var tail: [UInt8]
    }

    /// Walks `bytes` with reads of at most `readSize` bytes, each into an exactly-sized copy.
    static func walk(_ bytes: [UInt8], readSize: Int) -> Walk {
        var offset = 0
        var reader = SnapshotReader { buffer in
            let n = min(buffer.count, bytes.count - offset, readSize)
            // Exactly the bytes of this read, so AddressSanitizer sees any read beyond them.
            withExactCopy(of: bytes[offset..<offset + n]) { chunk in
                // Safe: `buffer` has room for `n` bytes (n <= buffer.count) and `chunk` holds n.
                if n > 0 { buffer.copyMemory(from: UnsafeRawBufferPointer(chunk)) }
            }
            offset += n
            return n
        }
        var elements: [[UInt8]] = []
        var ranges: [Range<UInt64>] = []
        var tail: [UInt8] = []
        // The in-memory source cannot fail.
        let summary = try! reader.walk(
            onEvent: { element in
                elements.append(Array(element.bytes))
                ranges.append(element.startOffset..<element.endOffset)
                return true
            },
            onTail: { tail.append(contentsOf: $0) })
        return Walk(summary: summary, elements: elements, ranges: ranges, tail: tail)
    }

    static func check(_ bytes: [UInt8], input: [UInt8], rng: inout FuzzRandom) {
        let whole = walk(bytes, readSize: .max)
        let s = whole.summary
        fuzzCheck(s.totalBytes == UInt64(bytes.count), "totalBytes \(s.totalBytes) for \(bytes.count) bytes", input: input)
        fuzzCheck(s.elements == whole.elements.count, "elements \(s.elements) but \(whole.elements.count) handed over", input: input)
        var previousEnd: UInt64 = 0
        for (range, element) in zip(whole.ranges, whole.elements) {
            fuzzCheck(
                range.lowerBound >= previousEnd && range.upperBound <= UInt64(bytes.count), "element range \(range) out of order or bounds",
                input: input)
            fuzzCheck(element == Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]), "element bytes are not the file's", input: input)
            previousEnd = range.upperBound
        }
        if let at = s.breakOffset {
            // Nothing is lost: the elements end before the break and the tail is the rest, whole.
            fuzzCheck(at >= previousEnd && at <= UInt64(bytes.count), "break \(at) before the last element's end \(previousEnd)", input: input)
            fuzzCheck(whole.tail == Array(bytes[Int(at)...]), "the tail is not the bytes from the break to the end", input: input)
            fuzzCheck(s.tailBytes == UInt64(whole.tail.count), "tailBytes \(s.tailBytes) for a \(whole.tail.count)-byte tail", input: input)
        } else {
            fuzzCheck(whole.tail.isEmpty, "a tail without a break", input: input)
        }
        fuzzCheck(s.isBlank || s.isSupported || s.unsupportedReason != nil, "neither supported nor a reason", input: input)
        // The result does not depend on how the stream is cut into reads.
        let chunked = walk(bytes, readSize: rng.int(1...64))
        fuzzCheck(chunked == whole, "reads of another size give another result", input: input)
    }
}
