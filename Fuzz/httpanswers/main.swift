// The `httpanswers` fuzz target: the lean transport's HTTP/1.1 answer reader on arbitrary bytes,
// fed whole and in pieces of every size the input picks. See docs/fuzzing.md.
@testable import MetaRouterDelivery

/// libFuzzer's entry point: called once per input, always from the same thread.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpAnswersFuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTPAnswersFuzz.run(fuzzInput(data, size))
    return 0
}

/// One fuzz input through every check.
enum HTTPAnswersFuzz {
    /// What reading a whole input gave: the answers in order, then how it ended.
    struct Reading: Equatable {
        var answers: [HTTPResponseParser.Answer] = []
        /// The error that stopped it, if any.
        var failure: String?
        /// The answer the close completed, or nil.
        var atClose: HTTPResponseParser.Answer?
        var closeFailed = false
    }

    static func run(_ input: [UInt8]) {
        var rng = FuzzRandom(seededBy: input)
        let whole = read(input, piece: max(1, input.count), input: input)
        for piece in [1, rng.int(1...max(1, input.count))] {
            let cut = read(input, piece: piece, input: input)
            if cut != whole { fuzzFailure("reading in pieces of \(piece) differs: \(cut) against \(whole)", input: input) }
        }
    }

    /// Reads `input` in pieces of `piece` bytes, each in an allocation of exactly its size, feeding
    /// the bytes after each answer back in as the next read does; then closes the connection.
    static func read(_ input: [UInt8], piece: Int, input original: [UInt8]) -> Reading {
        var parser = HTTPResponseParser()
        var reading = Reading()
        var start = 0
        while start < input.count {
            let end = min(input.count, start + piece)
            var offset = 0
            let failed: String? = withExactCopy(of: input[start..<end]) { chunk in
                while offset < chunk.count {
                    // Safe: `offset` <= chunk.count, so the rebased buffer lies inside `chunk`.
                    let rest = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: chunk[offset...]))
                    do {
                        let (answer, consumed) = try parser.read(rest)
                        guard consumed >= 0, consumed <= rest.count else {
                            fuzzFailure("read \(consumed) of \(rest.count) bytes", input: original)
                        }
                        if answer == nil, consumed != rest.count { fuzzFailure("stopped early without an answer", input: original) }
                        if let answer {
                            guard (100...999).contains(answer.status), !(100..<200).contains(answer.status) else {
                                fuzzFailure("an answer with status \(answer.status)", input: original)
                            }
                            reading.answers.append(answer)
                            if !parser.isIdle { fuzzFailure("not idle after an answer", input: original) }
                        }
                        offset += consumed
                    } catch {
                        return String(describing: error)
                    }
                }
                return nil
            }
            if let failed {
                reading.failure = failed
                return reading
            }
            start = end
        }
        do {
            reading.atClose = try parser.connectionClosed()
        } catch {
            reading.closeFailed = true
        }
        return reading
    }
}
