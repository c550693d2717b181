import InputShapes

/// A member read whole, or the error that stopped it.
struct ReadMember: Equatable {
    /// The member's name.
    var name: String
    /// Its decompressed bytes.
    var data: [UInt8]
}

/// Reading a whole archive through ``ZipReader``.
enum ZipReading {
    /// Every member of the archive in `source`, read in pieces of `chunk` bytes.
    static func members(_ source: ByteSource, chunk: Int = 4096, readerPiece: Int = 64 << 10) throws -> [ReadMember] {
        let reader = ZipReader(pieceSize: readerPiece)
        var out: [ReadMember] = []
        while let member = try reader.nextMember(pull: source.pull) {
            out.append(ReadMember(name: member.name, data: try contents(reader, source, chunk: chunk)))
        }
        return out
    }

    /// The rest of the current member's bytes.
    static func contents(_ reader: ZipReader, _ source: ByteSource, chunk: Int = 4096) throws -> [UInt8] {
        var data: [UInt8] = []
        var piece = [UInt8](repeating: 0, count: chunk)
        while true {
            // The reader writes at most the buffer's count into the array's storage, valid in the closure.
            let n = try piece.withUnsafeMutableBytes { try reader.read(into: $0, pull: source.pull) }
            if n == 0 { return data }
            data += piece[0..<n]
        }
    }

    /// Reads every member it can: after an error that lets the reader go on, the next member;
    /// after one that does not, stops. Returns the members read whole and the errors.
    static func salvage(_ bytes: [UInt8], pieceSize: Int = .max) -> (members: [ReadMember], errors: [ZipError]) {
        let source = ByteSource(bytes, pieceSize: pieceSize)
        let reader = ZipReader()
        var members: [ReadMember] = []
        var errors: [ZipError] = []
        while true {
            do {
                guard let member = try reader.nextMember(pull: source.pull) else { break }
                members.append(ReadMember(name: member.name, data: try contents(reader, source)))
            } catch let error as ZipError {
                errors.append(error)
                if !error.canContinue { break }
            } catch {
                fatalError("\(error)")
            }
        }
        return (members, errors)
    }
}
