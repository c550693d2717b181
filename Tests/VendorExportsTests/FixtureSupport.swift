import Foundation
import JSONCore
import Testing
import VendorExports

/// The fixture files next to this file: `<format>.ndjson`, records in the vendor's own shape, and
/// `<format>.expected.ndjson`, for each record line a JSON array of the Segment events it must
/// become, written by hand (derived messageIds computed with Python's mmh3 by the documented
/// scheme, independently of this module).
enum Fixtures {
    /// The fixture folder.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The lines of a fixture file, without their line ends.
    static func lines(_ name: String) -> [String] {
        let url = folder.appendingPathComponent(name)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The records of `format`'s fixture.
    static func records(_ format: ExportFormat) -> [String] { lines("\(format.rawValue).ndjson") }

    /// The expected events of `format`'s fixture, one array per record.
    static func expected(_ format: ExportFormat) -> [String] { lines("\(format.rawValue).expected.ndjson") }
}

/// One record of a fixture, a test case.
struct FixtureCase: Sendable, CustomTestStringConvertible {
    let format: ExportFormat
    let line: Int

    var testDescription: String { "\(format.rawValue) line \(line + 1)" }

    /// Every record of every fixture.
    static let all: [FixtureCase] = ExportFormat.allCases.flatMap { format in
        Fixtures.records(format).indices.map { FixtureCase(format: format, line: $0) }
    }
}

/// Converting records in the tests.
enum Convert {
    /// The events `text` becomes (as compact JSON texts), or the failure.
    static func events(_ format: ExportFormat, _ text: String) -> Result<[String], RecipeFailure> {
        var recipe = ExportRecipe(format)
        return events(&recipe, text)
    }

    /// The events `text` becomes with `recipe`.
    static func events(_ recipe: inout ExportRecipe, _ text: String) -> Result<[String], RecipeFailure> {
        var out: [UInt8] = []
        var ranges: [Range<Int>] = []
        let bytes = Array(text.utf8)
        let result: Result<Void, RecipeFailure> = bytes.withUnsafeBufferPointer { buffer in
            do throws(RecipeFailure) {
                try recipe.convert(buffer, into: &out, events: &ranges)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        return result.map { ranges.map { String(decoding: out[$0], as: UTF8.self) } }
    }

    /// The failure converting `text` gives, or nil when it converts.
    static func failure(_ format: ExportFormat, _ text: String) -> RecipeFailure? {
        if case .failure(let f) = events(format, text) { return f }
        return nil
    }

    /// The messageIds of the events `text` becomes (empty when it fails).
    static func messageIds(_ format: ExportFormat, _ text: String) -> [String] {
        guard case .success(let events) = events(format, text) else { return [] }
        return events.compactMap { try? JSONValue(parsing: $0).objectValue?["messageId"]?.stringValue }
    }
}

/// A JSON value's leaves by path (`context.device.model`, `properties.items[0].price`), so that
/// events compare field by field. Empty objects and arrays are leaves of their own.
enum Flatten {
    static func leaves(_ value: JSONValue, _ path: String = "") -> [(path: String, value: JSONValue)] {
        switch value {
        case .object(let o) where !o.isEmpty:
            return o.members.flatMap { leaves($0.value, path.isEmpty ? $0.key : "\(path).\($0.key)") }
        case .array(let a) where !a.isEmpty:
            return a.enumerated().flatMap { leaves($0.element, "\(path)[\($0.offset)]") }
        default:
            return [(path, value)]
        }
    }
}
