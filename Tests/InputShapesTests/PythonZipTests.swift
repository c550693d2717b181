import Foundation
import InputShapes
import Testing

/// Archives written by Python's `zipfile` (another implementation than the tests' own writer):
/// to a seekable file (sizes in the headers) and to a pipe-like stream (data descriptors),
/// with stored, deflated and ZIP64 members and a directory.
@Suite(.enabled(if: PythonZip.python != nil, "python3 is not installed"))
struct PythonZipTests {
    /// The members the script writes: name, method, ZIP64.
    static let members: [(String, Int, Bool)] = [
        ("events/a.ndjson", 8, false), ("events/b.ndjson", 0, false), ("events/c.ndjson", 8, true),
        ("events/d.ndjson", 0, true), ("events/empty.ndjson", 8, false),
    ]

    /// The contents of member `k` (the last one empty).
    static func contents(_ k: Int) -> [UInt8] {
        k == 4 ? [] : ZipReaderTests.ndjson("m\(k)", lines: 300 * (k + 1))
    }

    @Test(arguments: [true, false])
    func readsPythonArchives(seekable: Bool) throws {
        let archive = try PythonZip.make(
            members: Self.members.enumerated().map { k, m in (m.0, m.1, m.2, Self.contents(k)) }, seekable: seekable)
        let expected = Self.members.enumerated().map { k, m in ReadMember(name: m.0, data: Self.contents(k)) }
        #expect(try ZipReading.members(ByteSource(archive)) == expected)
        #expect(try ZipReading.members(ByteSource(archive, randomPiecesUpTo: 500, seed: 9), chunk: 333) == expected)
        let reader = ZipReader()
        let source = ByteSource(archive)
        while let member = try reader.nextMember(pull: source.pull) {
            #expect(member.hasDataDescriptor == !seekable, "\(member.name)")
            #expect(member.isZip64 == Self.members[member.index - 1].2, "\(member.name)")
        }
    }
}

/// Makes archives with Python's `zipfile`.
enum PythonZip {
    /// The interpreter, when there is one.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The script: reads a JSON spec (argv 1), writes the archive (argv 2).
    static let script = """
        import io, json, sys, zipfile
        spec = json.load(open(sys.argv[1]))
        class Unseekable(io.RawIOBase):
            def __init__(self, f): self.f = f
            def writable(self): return True
            def write(self, b): return self.f.write(b)
        with open(sys.argv[2], "wb") as f:
            target = f if spec["seekable"] else Unseekable(f)
            with zipfile.ZipFile(target, "w") as z:
                z.mkdir("events/")
                for m in spec["members"]:
                    info = zipfile.ZipInfo(m["name"])
                    info.compress_type = zipfile.ZIP_DEFLATED if m["method"] == 8 else zipfile.ZIP_STORED
                    with z.open(info, "w", force_zip64=m["zip64"]) as w:
                        w.write(open(m["path"], "rb").read())
        """

    /// An archive with these members (name, method, ZIP64, contents) and a directory
    /// `events/` first, written to a file (`seekable`) or to a stream that cannot seek.
    static func make(members: [(String, Int, Bool, [UInt8])], seekable: Bool) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var spec: [[String: Any]] = []
        for (k, member) in members.enumerated() {
            let path = dir.appendingPathComponent("m\(k)")
            try Data(member.3).write(to: path)
            spec.append(["name": member.0, "method": member.1, "zip64": member.2, "path": path.path])
        }
        let specPath = dir.appendingPathComponent("spec.json")
        try JSONSerialization.data(withJSONObject: ["seekable": seekable, "members": spec]).write(to: specPath)
        let scriptPath = dir.appendingPathComponent("make.py")
        try Data(script.utf8).write(to: scriptPath)
        let output = dir.appendingPathComponent("out.zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python ?? "python3")
        process.arguments = [scriptPath.path, specPath.path, output.path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PythonFailure(status: process.terminationStatus) }
        return Array(try Data(contentsOf: output))
    }

    /// The script failed with this exit status.
    struct PythonFailure: Error {
        var status: Int32
    }
}
