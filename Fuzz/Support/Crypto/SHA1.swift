// A stand-in for the part of swift-crypto's `Crypto` module that the fuzzed ReplayKit sources use
// (`Insecure.SHA1`, for derived anonymousIds), so that the fuzz build needs neither swift-crypto
// nor BoringSSL. A plain SHA-1 after FIPS 180-4, section 6.1; the fuzz harnesses only need it to
// be a deterministic function of its input, but it computes the real digest.

/// Hash functions that are not fit for security, as in swift-crypto.
public enum Insecure {
    /// SHA-1, fed with ``update(data:)`` or ``update(bufferPointer:)``.
    public struct SHA1 {
        private var h: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
        )
        private var block: [UInt8] = []
        private var length: UInt64 = 0

        /// A hasher with nothing hashed yet.
        public init() { block.reserveCapacity(64) }

        /// Hashes `data`'s bytes.
        public mutating func update(data: some Sequence<UInt8>) {
            for b in data { append(b) }
        }

        /// Hashes the bytes of `bufferPointer`.
        public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
            for b in bufferPointer { append(b) }
        }

        /// The 20-byte digest of everything hashed.
        public func finalize() -> [UInt8] {
            var copy = self
            let bits = length &* 8
            copy.append(0x80)
            while copy.block.count != 56 { copy.append(0) }
            for shift in stride(from: 56, through: 0, by: -8) { copy.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
            let words = [copy.h.0, copy.h.1, copy.h.2, copy.h.3, copy.h.4]
            return words.flatMap { w in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: w >> UInt32($0)) } }
        }

        private mutating func append(_ byte: UInt8) {
            block.append(byte)
            length &+= 1
            if block.count == 64 {
                compress()
                block.removeAll(keepingCapacity: true)
            }
        }

        /// One 64-byte block (FIPS 180-4, 6.1.2).
        private mutating func compress() {
            var w = [UInt32](repeating: 0, count: 80)
            for t in 0..<16 {
                w[t] =
                    UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8
                    | UInt32(block[4 * t + 3])
            }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = h
            for t in 0..<80 {
                let f: UInt32
                let k: UInt32
                switch t {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e)
        }

        private func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
    }
}
