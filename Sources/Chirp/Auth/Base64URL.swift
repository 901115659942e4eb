import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWTs and opaque tokens use it.
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Strict: only the URL alphabet, no padding, no whitespace, canonical trailing bits.
    static func decode(_ text: Substring) -> [UInt8]? {
        guard text.count % 4 != 1,
              text.utf8.allSatisfy({ byte in
                  (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                      || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
              })
        else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { return nil }
        let bytes = [UInt8](data)
        // Reject non-canonical encodings (spare bits set), so one token has one spelling.
        guard encode(bytes) == text else { return nil }
        return bytes
    }
}
