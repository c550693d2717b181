import InputShapes
import TestSupport
import Testing

/// Streaming zip members from their local headers: methods, data descriptors, ZIP64,
/// directories, the central directory, and damaged archives.
@Suite struct ZipReaderTests {
    typealias Entry = ZipBuilder.Entry

    /// NDJSON lines, compressible and long enough to take several deflate blocks and pieces.
    static func ndjson(_ tag: String, lines: Int) -> [UInt8] {
        var out = ""
        for i in 0..<lines { out += "{\"type\":\"track\",\"event\":\"\(tag)\",\"n\":\(i),\"s\":\"\(String(i * 7919, radix: 36))\"}\n" }
        return utf8(out)
    }

    /// Bytes that do not compress, holding zip signatures (`PK\x07\x08`, `PK\x03\x04`), to
    /// tempt a reader that scans stored data for its descriptor.
    static func tricky(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var out = (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
        for at in stride(from: 10, to: count - 16, by: 97) {
            out.replaceSubrange(at..<(at + 8), with: [0x50, 0x4B, 0x07, 0x08, 0x50, 0x4B, 0x03, 0x04])
        }
        return out
    }

    /// Every way a member's data and sizes can be written.
    static let variants: [(UInt16, ZipBuilder.Descriptor, Bool)] = [
        (0, .none, false), (8, .none, false), (0, .signed, false), (8, .signed, false), (0, .unsigned, false),
        (8, .unsigned, false), (0, .none, true), (8, .none, true), (0, .signed, true), (8, .signed, true),
        (0, .unsigned, true), (8, .unsigned, true),
    ]

    /// An archive's members, all written one way, with a directory and an empty member.
    static func entries(method: UInt16, descriptor: ZipBuilder.Descriptor, zip64: Bool) -> [Entry] {
        [
            Entry(name: "a.ndjson", data: ndjson("a", lines: 2000), method: method, descriptor: descriptor, zip64: zip64),
            Entry(name: "dir/", data: [], method: 0, descriptor: descriptor, zip64: zip64),
            Entry(name: "empty.ndjson", data: [], method: method, descriptor: descriptor, zip64: zip64),
            Entry(name: "dir/b.bin", data: tricky(5000, seed: 3), method: method, descriptor: descriptor, zip64: zip64),
            Entry(name: "ü.ndjson", data: ndjson("c", lines: 10), method: method, descriptor: descriptor, zip64: zip64),
        ]
    }

    @Test(arguments: variants)
    func readsMembersInOrder(method: UInt16, descriptor: ZipBuilder.Descriptor, zip64: Bool) throws {
        let entries = Self.entries(method: method, descriptor: descriptor, zip64: zip64)
        let expected = entries.filter { !$0.name.hasSuffix("/") }.map { ReadMember(name: $0.name, data: $0.data) }
        let archive = ZipBuilder.build(entries).bytes
        #expect(try ZipReading.members(ByteSource(archive)) == expected)
        #expect(try ZipReading.members(ByteSource(archive, pieceSize: 1), chunk: 7, readerPiece: 64) == expected)
        let random = ByteSource(archive, randomPiecesUpTo: 3000, seed: UInt64(method) + 1)
        #expect(try ZipReading.members(random, chunk: 1000) == expected)
    }

    @Test func memberDescriptionsAndIndexes() throws {
        let archive = ZipBuilder.build([
            Entry(name: "d/", data: [], method: 0),
            Entry(name: "one", data: utf8("1"), method: 0),
            Entry(name: "two", data: utf8("22"), method: 8, descriptor: .signed, zip64: true),
        ])
        let source = ByteSource(archive.bytes)
        let reader = ZipReader()
        let one = try #require(try reader.nextMember(pull: source.pull))
        #expect(one.index == 1 && one.name == "one" && one.method == 0 && one.compressedSize == 1 && one.uncompressedSize == 1)
        #expect(one.offset == archive.placements[1].headerOffset && !one.hasDataDescriptor)
        let two = try #require(try reader.nextMember(pull: source.pull))  // "one" is skipped unread
        #expect(two.index == 2 && two.name == "two" && two.method == 8 && two.hasDataDescriptor && two.isZip64)
        #expect(two.compressedSize == nil && two.uncompressedSize == nil)
        #expect(try ZipReading.contents(reader, source) == utf8("22"))
        #expect(try reader.nextMember(pull: source.pull) == nil)
        #expect(try reader.nextMember(pull: source.pull) == nil)
    }

    /// Going to the next member half-way through one skips the rest (decompressing only when
    /// the end is in a data descriptor).
    @Test(arguments: variants)
    func skipsAPartlyReadMember(method: UInt16, descriptor: ZipBuilder.Descriptor, zip64: Bool) throws {
        let entries = Self.entries(method: method, descriptor: descriptor, zip64: zip64)
        let source = ByteSource(ZipBuilder.build(entries).bytes, pieceSize: 1000)
        let reader = ZipReader()
        _ = try reader.nextMember(pull: source.pull)
        var piece = [UInt8](repeating: 0, count: 100)
        _ = try piece.withUnsafeMutableBytes { try reader.read(into: $0, pull: source.pull) }
        #expect(try reader.nextMember(pull: source.pull)?.name == "empty.ndjson")
        #expect(try reader.nextMember(pull: source.pull)?.name == "dir/b.bin")
        #expect(try ZipReading.contents(reader, source) == entries[3].data)
    }

    @Test func emptyArchiveAndNoArchive() throws {
        #expect(try ZipReading.members(ByteSource(ZipBuilder.build([]).bytes)).isEmpty)
        #expect(throws: ZipError.self) { try ZipReading.members(ByteSource([])) }
        let notZip = ZipReading.salvage(utf8("{\"type\":\"track\"}\n"))
        #expect(notZip.errors.map(\.kind) == [.badHeader("no local file header (found signature 0x7974227b)")])
    }

    @Test func archiveWithoutCentralDirectory() throws {
        let bytes = ZipBuilder.build([Entry(name: "a", data: utf8("x"))], centralDirectory: false).bytes
        let result = ZipReading.salvage(bytes)
        #expect(result.members == [ReadMember(name: "a", data: utf8("x"))])
        #expect(result.errors.map(\.kind) == [.missingCentralDirectory] && result.errors.first?.canContinue == false)
    }

    // MARK: Damage

    /// A wrong CRC-32 is an error naming the member; the reader goes on to the next member.
    @Test(arguments: variants)
    func damagedCRC(method: UInt16, descriptor: ZipBuilder.Descriptor, zip64: Bool) throws {
        guard descriptor != .unsigned || method != 0 else { return }  // tested below
        var entries = Self.entries(method: method, descriptor: descriptor, zip64: zip64)
        entries[0].crcDamage = 0x10
        let (members, errors) = ZipReading.salvage(ZipBuilder.build(entries).bytes, pieceSize: 777)
        #expect(errors.count == 1, "\(errors)")
        let error = try #require(errors.first)
        #expect(error.member == "a.ndjson" && error.canContinue, "\(error)")
        guard case .badCRC(let expected, let actual) = error.kind else {
            Issue.record("\(error)")
            return
        }
        #expect(expected ^ actual == 0x10)
        #expect(members.map(\.name) == ["empty.ndjson", "dir/b.bin", "ü.ndjson"])
        #expect(members[1].data == entries[3].data)
    }

    /// Damaged data in a stored member with an unsigned descriptor: no descriptor matches the
    /// data, so its end is never found; the rest of the archive is read as its data and the
    /// reader stops, truncated.
    @Test func damagedStoredMemberWithUnsignedDescriptor() throws {
        var entries = Self.entries(method: 0, descriptor: .unsigned, zip64: false)
        entries[3].crcDamage = 1
        let (members, errors) = ZipReading.salvage(ZipBuilder.build(entries).bytes)
        #expect(members.map(\.name) == ["a.ndjson", "empty.ndjson"])
        #expect(errors.map(\.kind) == [.truncated] && errors.map(\.member) == ["dir/b.bin"] && errors.first?.canContinue == false)
    }

    /// Damaged deflate data: with sizes in the header the reader goes on; with a data
    /// descriptor it cannot, and says so again on every later call.
    @Test(arguments: [ZipBuilder.Descriptor.none, .signed])
    func damagedDeflateData(descriptor: ZipBuilder.Descriptor) throws {
        let entries = Self.entries(method: 8, descriptor: descriptor, zip64: false)
        var build = ZipBuilder.build(entries)
        let data = build.placements[0].dataRange
        for k in stride(from: data.lowerBound + 2, to: data.lowerBound + 60, by: 1) { build.bytes[k] ^= 0xA5 }
        let (members, errors) = ZipReading.salvage(build.bytes)
        let error = try #require(errors.first)
        #expect(error.member == "a.ndjson", "\(error)")
        if case .badDeflateData = error.kind {} else if case .badCRC = error.kind {} else { Issue.record("\(error)") }
        if descriptor == .none {
            #expect(error.canContinue && members.map(\.name) == ["empty.ndjson", "dir/b.bin", "ü.ndjson"], "\(errors)")
        } else {
            #expect(members.isEmpty && errors.count == 1 && !error.canContinue, "\(errors)")
            let reader = ZipReader()
            let source = ByteSource(build.bytes)
            _ = try reader.nextMember(pull: source.pull)
            #expect(throws: error) { try ZipReading.contents(reader, source) }
            #expect(throws: error) { try reader.nextMember(pull: source.pull) }
        }
    }

    /// Cut anywhere, an archive is an error that cannot be gone past; cut inside a member, the
    /// error names it.
    @Test(arguments: variants)
    func truncatedArchive(method: UInt16, descriptor: ZipBuilder.Descriptor, zip64: Bool) throws {
        let build = ZipBuilder.build(Self.entries(method: method, descriptor: descriptor, zip64: zip64))
        let firstEnd = build.placements[1].headerOffset
        for cut in [5, 40, build.placements[0].dataRange.lowerBound + 3, firstEnd - 3, build.placements[4].dataRange.upperBound] {
            let (members, errors) = ZipReading.salvage(Array(build.bytes[0..<cut]))
            let error = try #require(errors.first, "cut at \(cut)")
            #expect(errors.count == 1 && !error.canContinue, "cut at \(cut): \(errors)")
            if cut > build.placements[0].dataRange.lowerBound && cut < firstEnd {
                #expect(error.member == "a.ndjson" && members.isEmpty, "cut at \(cut): \(error)")
            }
        }
    }

    /// Encrypted members and unknown methods: with sizes in the header the reader steps over
    /// them; with a data descriptor it cannot.
    @Test(arguments: [
        (UInt16(8), UInt16(0x0001), ZipError.Kind.encrypted), (8, 0x0040, .encrypted), (12, 0, .unsupportedMethod(12)),
    ])
    func unreadableMembers(method: UInt16, flags: UInt16, kind: ZipError.Kind) throws {
        var entries = Self.entries(method: 8, descriptor: .none, zip64: false)
        entries[0].extraFlags = flags
        var build = ZipBuilder.build(entries)
        build.bytes[build.placements[0].headerOffset + 8] = UInt8(method)
        let sized = ZipReading.salvage(build.bytes)
        #expect(sized.errors.map(\.kind) == [kind] && sized.errors.map(\.member) == ["a.ndjson"])
        #expect(sized.errors.first?.canContinue == true)
        #expect(sized.members.map(\.name) == ["empty.ndjson", "dir/b.bin", "ü.ndjson"])

        entries[0].descriptor = .signed
        var described = ZipBuilder.build(entries)
        described.bytes[described.placements[0].headerOffset + 8] = UInt8(method)
        let stopped = ZipReading.salvage(described.bytes)
        #expect(stopped.errors.map(\.kind) == [kind] && stopped.errors.first?.canContinue == false)
        #expect(stopped.members.isEmpty)
    }

    /// A header that says more bytes than the data holds: a size error, and the reader goes on.
    @Test(arguments: [UInt16(0), 8])
    func sizeThatLies(method: UInt16) throws {
        var entries = Self.entries(method: method, descriptor: .none, zip64: false)
        entries[0].sizeLie = 5
        let (members, errors) = ZipReading.salvage(ZipBuilder.build(entries).bytes)
        #expect(errors.count == 1 && errors.first?.member == "a.ndjson" && errors.first?.canContinue == true, "\(errors)")
        if case .sizeMismatch = errors.first?.kind {} else { Issue.record("\(errors)") }
        #expect(members.map(\.name) == ["empty.ndjson", "dir/b.bin", "ü.ndjson"])
    }
}
