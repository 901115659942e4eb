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
