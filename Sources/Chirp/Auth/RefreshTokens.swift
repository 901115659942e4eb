import CSodium

/// Refresh tokens are 32 random bytes shown to the client once; the database keeps only
/// their SHA-256, so a leaked table cannot be replayed.
enum RefreshTokens {
    static let lifetimeDays = 30

    static func generate() -> String {
        _ = Sodium.ready
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        return Base64URL.encode(bytes)
    }

    static func hash(_ token: String) -> [UInt8] {
        SHA256.hash(Array(token.utf8))
    }

    /// Whether `text` could be a token at all: checked before any database work.
    static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43 && Base64URL.decode(Substring(text))?.count == 32
    }
}
