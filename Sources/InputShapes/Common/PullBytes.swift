/// How every reader in this module gets its source's bytes: the closure reads up to the given
/// memory's size of the next bytes into it and returns how many, 0 at the end of the source.
/// Its errors are rethrown as they are. The same closure is passed to every call on one reader
/// (as with GzipCodec's `GunzipReader`), so a reader holds no reference to its source.
package typealias PullBytes = (UnsafeMutableRawBufferPointer) throws -> Int
