import CSodium

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
