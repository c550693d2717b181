// The `exports` fuzz target: what reads other tools' exports and other shapes, on arbitrary
// bytes: every vendor's recipe, a declarative transform plan, the CSV, JSON array and zip
// readers (pulled in pieces of every size). Each must fail cleanly or hand out well-formed
// output inside its buffers. See docs/fuzzing.md.
import EventTransforms
import InputShapes
import JSONCore
import VendorExports

/// libFuzzer's entry point: called once per input, always from the same thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func exportsFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    ExportsFuzz.run(fuzzInput(data, size))
    return 0
}

/// One fuzz input through every check.
enum ExportsFuzz {
    // libFuzzer calls the entry point from one thread only: the recipes' scratch storage and
    // the transformer's are used by that thread alone.
    nonisolated(unsafe) static var recipes = ExportFormat.allCases.map { ExportRecipe($0) }
    nonisolated(unsafe) static let transformer = try! EventTransformer(
        TransformPlan(
            parsing: try! JSONValue(
                parsing: #"""
                    [{"rename": {"from": "properties.a", "to": "context.b.c"}}, {"set": {"path": "traits.x", "value": [1]}},
                     {"delete": ["userId", "properties.q"]}, {"map_events": {"A": "B"}}, {"drop": {"type": "alias"}},
                     {"copy_properties_to_traits": "all"}]
                    """#)))

    static func run(_ input: [UInt8]) {
        var rng = FuzzRandom(seededBy: input)
        withExactCopy(of: input) { bytes in
            for i in recipes.indices { checkRecipe(i, bytes, input) }
            checkTransform(bytes, input)
        }
        let piece = rng.int(1...max(1, input.count))
        readCSV(input, piece: piece)
        readJSONArray(input, piece: piece)
        readZip(input, piece: piece)
    }

    /// A recipe's events are whole JSON objects inside its output; a failure leaves no output.
    static func checkRecipe(_ i: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ input: [UInt8]) {
        var out: [UInt8] = [], events: [Range<Int>] = []
        do {
            try recipes[i].convert(bytes, into: &out, events: &events)
        } catch {
            if !out.isEmpty || !events.isEmpty { fuzzFailure("\(recipes[i].format): a failure left output", input: input) }
            return
        }
        out.withUnsafeBufferPointer { all in
            for range in events {
                guard (try? ObjectLayout.scanDocument(checkedSlice(all, range))) != nil else {
                    fuzzFailure("\(recipes[i].format): an event is not a JSON object", input: input)
                }
            }
        }
    }

    /// What a transform keeps is one JSON object.
    static func checkTransform(_ bytes: UnsafeBufferPointer<UInt8>, _ input: [UInt8]) {
        var out: [UInt8] = []
        guard case .kept? = try? transformer.apply(bytes, into: &out) else { return }
        let valid = out.withUnsafeBufferPointer { (try? ObjectLayout.scanDocument($0)) != nil }
        if !valid { fuzzFailure("transform: the kept event is not a JSON object", input: input) }
    }

    /// A pull over `input` in pieces of at most `piece` bytes.
    static func puller(_ input: [UInt8], piece: Int) -> PullBytes {
        var offset = 0
        return { room in
            let n = min(room.count, piece, input.count - offset)
            // Safe: `room` has space for `n` bytes (n <= room.count) and input[offset..<offset + n] holds them.
            if n > 0 { input[offset..<(offset + n)].withUnsafeBytes { room.copyMemory(from: $0) } }
            offset += n
            return n
        }
    }

    static func readCSV(_ input: [UInt8], piece: Int) {
        let reader = CSVEventReader(maximumRecordBytes: 4096)
        let pull = puller(input, piece: piece)
        for _ in 0..<10_000 {
            do {
                guard let event = try reader.next(pull: pull) else { return }
                let valid = event.json.withUnsafeBufferPointer { (try? ObjectLayout.scanDocument($0)) != nil }
                if !valid { fuzzFailure("csv: an event is not a JSON object", input: input) }
            } catch CSVError.raggedRecord, CSVError.badCell {
                continue  // the reader goes on after these
            } catch {
                return
            }
        }
    }

    static func readJSONArray(_ input: [UInt8], piece: Int) {
        let reader = JSONArrayReader(maximumElementBytes: 4096, pieceSize: 64)
        let pull = puller(input, piece: piece)
        while let element = try? reader.next(pull: pull) {
            guard element.start <= element.end, element.end <= input.count else {
                fuzzFailure("json array: element \(element.index) lies outside the input", input: input)
            }
        }
    }

    static func readZip(_ input: [UInt8], piece: Int) {
        let reader = ZipReader(pieceSize: 64)
        let pull = puller(input, piece: piece)
        var room = [UInt8](repeating: 0, count: 97)
        for _ in 0..<64 {
            guard let member = try? reader.nextMember(pull: pull) else { return }
            _ = member.name
            while let n = try? room.withUnsafeMutableBytes({ try reader.read(into: $0, pull: pull) }), n > 0 {}
        }
    }
}
