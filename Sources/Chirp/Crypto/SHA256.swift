import CSodium

/// SHA-256 (libsodium).
enum SHA256 {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        _ = Sodium.ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}
