import CSodium

/// HMAC-SHA256 with a key of any length (libsodium), and a constant-time comparison.
enum HMAC {
    static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var state = crypto_auth_hmacsha256_state()
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_init(&state, key, key.count)
        crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        crypto_auth_hmacsha256_final(&state, &out)
        return out
    }

    /// Equal length and equal bytes, in time that does not depend on where they differ.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && sodium_memcmp(a, b, a.count) == 0
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

/// BLAKE2b (libsodium's generic hash): several times faster than SHA-256 in software, for
/// digests of whole response bodies where no key or standard format is needed.
enum BLAKE2b {
    static func hash(_ bytes: [UInt8], length: Int = 16) -> [UInt8] {
        _ = Sodium.ready
        var digest = [UInt8](repeating: 0, count: length)
        crypto_generichash(&digest, length, bytes, UInt64(bytes.count), nil, 0)
        return digest
    }
}
