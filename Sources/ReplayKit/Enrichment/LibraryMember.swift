import JSONCore
import ReplayConfiguration

/// mr-replay's `library` object, `{"name":"mr-replay","version":"…"}`, which enrichment puts in
/// every context that names no library of its own.
package enum LibraryMember {
    /// The object's JSON.
    package static let json: [UInt8] = {
        var lib: [UInt8] = Array("{\"name\":\"mr-replay\",\"version\":".utf8)
        lib += JSONStrings.quoted(ReplayConfig.toolVersion)
        lib.append(UInt8(ascii: "}"))
        return lib
    }()

    /// The member, `"library":` and the object, as edits append it to a context.
    private static let member: [UInt8] = JSONStrings.quoted("library") + [UInt8(ascii: ":")] + json

    /// ``member`` in memory allocated once, never written after it is filled and never freed, so
    /// a pointer to it is valid for the rest of the program and may be shared by every thread.
    nonisolated(unsafe) static let bytes: UnsafeBufferPointer<UInt8> = {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: member.count)
        _ = copy.initialize(from: member)
        return UnsafeBufferPointer(copy)
    }()
}
