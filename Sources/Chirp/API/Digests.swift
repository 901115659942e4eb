import CSodium

/// HMAC-SHA256 with a key of any length (libsodium), and a constant-time comparison.
enum HMAC {
    static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        HMACKey(key).authenticate(message)
    }

    /// A 32-byte key for one purpose, derived from the service secret: each purpose (cursors,
    /// ETags, idempotency fingerprints) gets its own, so a tag made for one is no use to another.
    static func subkey(of secret: [UInt8], for purpose: String) -> [UInt8] {
        sha256(key: secret, message: Array(purpose.utf8))
    }

    /// Equal length and equal bytes, in time that does not depend on where they differ.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && sodium_memcmp(a, b, a.count) == 0
    }
}

/// An HMAC-SHA256 key made ready once: its inner and outer padded blocks are hashed when the
/// key is made, so each MAC (an access token's, checked on every signed-in request) hashes
/// only its message, two compressions instead of four.
struct HMACKey: @unchecked Sendable {
    /// Immutable after `init` and copied per MAC, so sharing it across threads is safe.
    private let prepared: crypto_auth_hmacsha256_state

    init(_ key: [UInt8]) {
        _ = Sodium.ready
        var state = crypto_auth_hmacsha256_state()
        crypto_auth_hmacsha256_init(&state, key, key.count)
        prepared = state
    }

    /// The MAC of the parts, one after another, as of their concatenation.
    func authenticate(_ parts: [UInt8]...) -> [UInt8] {
        var state = prepared
        for part in parts {
            crypto_auth_hmacsha256_update(&state, part, UInt64(part.count))
        }
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_final(&state, &out)
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
        return out
    }
}

enum SHA256 {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}

/// SipHash-2-4 with a 128-bit output (libsodium's `crypto_shorthash_siphashx24`): a keyed
/// hash, over a page-sized body twice as fast here as BLAKE2b, for tags that only need to be
/// hard to collide without the key (ETags).
enum SipHash128 {
    static let keyLength = Int(crypto_shorthash_siphashx24_KEYBYTES)

    static func hash(key: [UInt8], _ bytes: [UInt8]) -> [UInt8] {
        precondition(key.count == keyLength, "SipHash takes a 16-byte key")
        _ = Sodium.ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_shorthash_siphashx24_BYTES))
        crypto_shorthash_siphashx24(&digest, bytes, UInt64(bytes.count), key)
        return digest
    }
}

/// BLAKE2b (libsodium's generic hash), keyed.
enum BLAKE2b {
    /// Keyed BLAKE2b, a MAC: for a short message two compressions of a few hundred
    /// instructions each, where HMAC-SHA256 takes two (prepared) of several thousand. For
    /// tags no other program has to check, such as list cursors. `key` is 16 to 64 bytes;
    /// the tag is written into `digest`, whose length (16 to 64 bytes) is the tag's.
    static func mac(key: [UInt8], message: UnsafeBufferPointer<UInt8>, into digest: UnsafeMutableBufferPointer<UInt8>) {
        precondition((Int(crypto_generichash_KEYBYTES_MIN)...Int(crypto_generichash_KEYBYTES_MAX)).contains(key.count),
                     "BLAKE2b key length out of range")
        guard let tag = digest.baseAddress,
              (Int(crypto_generichash_BYTES_MIN)...Int(crypto_generichash_BYTES_MAX)).contains(digest.count)
        else { preconditionFailure("BLAKE2b tags are 16 to 64 bytes") }
        _ = Sodium.ready
        crypto_generichash(tag, digest.count, message.baseAddress, UInt64(message.count), key, key.count)
    }
}
