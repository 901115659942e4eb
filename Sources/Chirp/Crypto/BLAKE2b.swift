import CSodium

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
