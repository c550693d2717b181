#ifndef CSHA1_H
#define CSHA1_H

// SHA-1 (FIPS 180-4) of one buffer with x86-64's SHA instructions, for name-based UUIDs (RFC 9562
// version 5). Not for security: mr-replay hashes userIds with it to derive their anonymousIds,
// which any UUID library computes the same way. A library's SHA-1 costs a context, setup and a
// CPU capability check per hash, several times the hash itself for a UUID's one block; this
// keeps the state on the stack. Where the CPU has no SHA instructions (or is not x86-64),
// mr-replay hashes with libcrypto (Digests), which uses what that CPU has.
//
// It reads exactly `count` bytes at `data` (none when `count` is 0, when `data` may be NULL)
// and writes exactly 20 bytes at `digest`.

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

/// Whether this CPU has the SHA extensions (CPUID leaf 7, EBX bit 29) and SSE4.1, which the
/// accelerated compression uses. Asked once: the answer is cached (a benign race, every thread
/// stores the same value).
static inline int mr_sha1_has_sha_extensions(void) {
    static int cached = -1;
    int known = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (known >= 0) return known;
    unsigned int eax, ebx, ecx, edx;
    int has = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_1) && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        has = (ebx & (1u << 29)) != 0;
    }
    __atomic_store_n(&cached, has, __ATOMIC_RELAXED);
    return has;
}

/// Four rounds with message words `w` (W[t] in the highest lane) and round function `f`. Their
/// E term rides in the highest lane of the words (`ew`): E itself for the block's first four
/// rounds (`first`), and after that rol30 of the A that started the four rounds before
/// (`sha1nexte` of `prev`, the state they started from).
#define MR_SHA1_ROUNDS4(f, w)                                                          \
    do {                                                                               \
        __m128i ew = first ? _mm_add_epi32(e0, (w)) : _mm_sha1nexte_epu32(prev, (w)); \
        first = 0;                                                                     \
        prev = abcd;                                                                   \
        abcd = _mm_sha1rnds4_epu32(abcd, ew, f);                                       \
    } while (0)

/// The next four message words, W[t..t+3], from the sixteen before them (`w0` holds W[t-16..],
/// `w1` W[t-12..], `w2` W[t-8..], `w3` W[t-4..]); the result replaces `w0`.
#define MR_SHA1_SCHEDULE(w0, w1, w2, w3) \
    (w0) = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32((w0), (w1)), (w2)), (w3))

/// Overall group `G` (rounds 4G to 4G+3, G >= 4) with round function `f`: its words scheduled
/// into the oldest of the four vectors, then its four rounds.
#define MR_SHA1_GROUP(f, G)                                                                 \
    do {                                                                                    \
        MR_SHA1_SCHEDULE(m[(G) & 3], m[((G) + 1) & 3], m[((G) + 2) & 3], m[((G) + 3) & 3]); \
        MR_SHA1_ROUNDS4(f, m[(G) & 3]);                                                     \
    } while (0)

/// The compression function over `blocks` 64-byte blocks at `data`, with the CPU's SHA
/// instructions. Only call it when `mr_sha1_has_sha_extensions()` is true.
__attribute__((target("sha,sse4.1")))
static inline void mr_sha1_blocks(uint32_t state[5], const uint8_t *data, size_t blocks) {
    // Reverses a vector's 16 bytes: big-endian words, W[t] in the highest lane, as the
    // instructions expect.
    const __m128i reverse = _mm_set_epi64x(0x0001020304050607LL, 0x08090A0B0C0D0E0FLL);
    // A in the highest lane, D in the lowest; E alone in the highest lane of its own vector.
    __m128i abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1B);
    __m128i e0 = _mm_set_epi32((int)state[4], 0, 0, 0);
    for (size_t n = 0; n < blocks; n++, data += 64) {
        const __m128i abcd_start = abcd, e_start = e0;
        __m128i m[4];
        // Unaligned loads of the 64 bytes of block n, inside the caller's buffer.
        for (int i = 0; i < 4; i++) m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), reverse);
        __m128i prev = abcd;
        int first = 1;
        // Rounds 0-15 use the block's own words; from round 16 on, each group's are scheduled.
        for (int g = 0; g < 4; g++) MR_SHA1_ROUNDS4(0, m[g]);
        MR_SHA1_GROUP(0, 4);
        for (int g = 5; g < 10; g++) MR_SHA1_GROUP(1, g);
        for (int g = 10; g < 15; g++) MR_SHA1_GROUP(2, g);
        for (int g = 15; g < 20; g++) MR_SHA1_GROUP(3, g);
        // E after eighty rounds is rol30 of the A that started the last four; add both halves
        // of the state to where the block started.
        e0 = _mm_sha1nexte_epu32(prev, e_start);
        abcd = _mm_add_epi32(abcd, abcd_start);
    }
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1B));
    state[4] = (uint32_t)_mm_extract_epi32(e0, 3);
}
#undef MR_SHA1_GROUP
#undef MR_SHA1_SCHEDULE
#undef MR_SHA1_ROUNDS4

/// The SHA-1 digest of `count` bytes at `data`, written at `digest`. Only call it when
/// `mr_sha1_has_sha_extensions()` is true (elsewhere, hash with libcrypto).
__attribute__((target("sha,sse4.1")))
static inline void mr_sha1_with_sha_extensions(const uint8_t *data, size_t count, uint8_t digest[20]) {
    uint32_t state[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    size_t whole = count / 64;
    if (whole > 0) mr_sha1_blocks(state, data, whole);
    // The bytes after the whole blocks, the 0x80 byte and the length in bits (big-endian) fill
    // one more block, or two when the length does not fit after the 0x80 byte.
    uint8_t tail[128];
    size_t rest = count - whole * 64;
    if (rest > 0) memcpy(tail, data + whole * 64, rest);
    tail[rest] = 0x80;
    size_t tailBytes = rest + 1 + 8 <= 64 ? 64 : 128;
    memset(tail + rest + 1, 0, tailBytes - rest - 1 - 8);
    uint64_t bits = (uint64_t)count * 8;
    for (int i = 0; i < 8; i++) tail[tailBytes - 1 - i] = (uint8_t)(bits >> (8 * i));
    mr_sha1_blocks(state, tail, tailBytes / 64);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}
#endif

#endif
