import JSONCore
import TestSupport
import Testing
import VendorExports

/// Damaged records: every fixture record cut short and with bytes changed must either fail with a
/// reason or convert into events that are each a valid JSON object — never crash, never write
/// invalid JSON.
@Suite("Damaged records")
struct MutationTests {
    /// Bytes a change puts in: JSON's structural characters, quotes, escapes, digits and UTF-8.
    static let replacements: [UInt8] = Array(#"{}[]":,\ntfu0 9-.eE"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]

    @Test("cut and changed records fail or give valid events", arguments: ExportFormat.allCases)
    func damaged(_ format: ExportFormat) throws {
        var random = SeededRandom(seed: UInt64(format.rawValue.utf8.count) &* 7919)
        var recipe = ExportRecipe(format)
        var converted = 0
        var failed = 0
        for record in Fixtures.records(format) {
            let bytes = Array(record.utf8)
            for _ in 0..<150 {
                var damaged = bytes
                if random.next() % 3 == 0 {
                    damaged.removeLast(Int(random.next() % UInt64(damaged.count)))
                } else {
                    for _ in 0...(random.next() % 3) {
                        let at = Int(random.next() % UInt64(damaged.count))
                        damaged[at] = Self.replacements[Int(random.next() % UInt64(Self.replacements.count))]
                    }
                }
                var out: [UInt8] = []
                var ranges: [Range<Int>] = []
                let result: Result<Void, RecipeFailure> = damaged.withUnsafeBufferPointer { buffer in
                    do throws(RecipeFailure) {
                        try recipe.convert(buffer, into: &out, events: &ranges)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                switch result {
                case .failure(let failure):
                    failed += 1
                    #expect(failure.detail.hasPrefix(format.rawValue + ": "), "\(failure)")
                    #expect(out.isEmpty && ranges.isEmpty)
                case .success:
                    converted += 1
                    for r in ranges {
                        let event = try? JSONValue(parsing: Array(out[r]))
                        #expect(
                            event?.objectValue?["type"] != nil,
                            "\(String(decoding: damaged, as: UTF8.self)) -> \(String(decoding: out[r], as: UTF8.self))")
                    }
                }
            }
        }
        #expect(failed > 0 && converted > 0, "\(format): \(converted) converted, \(failed) failed")
    }
}
