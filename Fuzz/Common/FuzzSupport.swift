// Shared by every fuzz harness (Fuzz/fuzz.sh compiles this file into each target).

/// The input libFuzzer passes to `LLVMFuzzerTestOneInput`, copied.
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    // Safe: libFuzzer passes `size` readable bytes at `data` (nil only when `size` is 0), valid
    // for this call; they are copied at once.
    size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
}

/// Calls `body` with a copy of `bytes` in an allocation of exactly `bytes.count` bytes, so that
/// AddressSanitizer reports a read of even one byte past the end (a copy inside a larger buffer,
/// such as an `Array` with spare capacity, would hide it).
///
/// An empty input is passed as a buffer without a base address, the form readers must handle
/// besides an empty allocation.
func withExactCopy<R>(of bytes: some Collection<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    if bytes.isEmpty { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
    let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
    // Safe: `storage` holds exactly `bytes.count` uninitialized UInt8s; initializing a trivial
    // type from a collection of that size fills it completely.
    _ = storage.initialize(from: bytes)
    // Safe: `storage` is deallocated only after `body` returns, and `body` must not keep the
    // pointer (the same rule as `withUnsafeBufferPointer`).
    defer { storage.deallocate() }
    return try body(UnsafeBufferPointer(storage))
}

/// `buf[range]` as a buffer of its own, once `range` is checked to lie inside `buf` (ranges come
/// from the code under test, so they are checked rather than trusted).
func checkedSlice(_ buf: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
    precondition(range.lowerBound >= 0 && range.upperBound <= buf.count, "range \(range) is outside the \(buf.count) bytes")
    // Safe: `range` was just checked to lie inside `buf`; the result borrows `buf`'s memory and
    // callers use it only while `buf` is valid.
    return UnsafeBufferPointer(rebasing: buf[range])
}

/// Stops the fuzzer with `message` and the input that led to it. libFuzzer saves the input as
/// a `crash-*` file as well; the text here is for reading the failure at once.
func fuzzFailure(_ message: String, input: [UInt8], file: StaticString = #fileID, line: UInt = #line) -> Never {
    fatalError("\(message)\ninput (\(input.count) bytes): \(showBytes(input))", file: file, line: line)
}

/// Checks `condition`, or stops with `message` (see ``fuzzFailure(_:input:file:line:)``).
@inline(__always)
func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, input: [UInt8],
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fuzzFailure(message(), input: input, file: file, line: line) }
}

/// `bytes` as printable text: ASCII as is, everything else (and `\`) as `\xNN`; long inputs are cut.
func showBytes(_ bytes: some Collection<UInt8>, limit: Int = 1_500) -> String {
    var out = "\""
    for b in bytes.prefix(limit) {
        if b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\\") && b != UInt8(ascii: "\"") {
            out.unicodeScalars.append(Unicode.Scalar(b))
        } else {
            let hex = String(b, radix: 16, uppercase: true)
            out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    out += "\""
    if bytes.count > limit { out += "... (\(bytes.count) bytes in all)" }
    return out
}

/// The harnesses' choices beyond the input bytes (which edit, which key) come from the tests'
/// SplitMix64 generator (`Tests/TestSupport/SeededRandom.swift`, compiled into every harness),
/// seeded from the input, so that they are the same on every replay.
typealias FuzzRandom = SeededRandom

extension SeededRandom {
    /// A generator seeded with the FNV-1a hash of `bytes`.
    init(seededBy bytes: some Sequence<UInt8>) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        self.init(seed: h)
    }
}
