import Foundation

/// UUIDs to and from their lowercase text form without Foundation's formatter and scanner,
/// which cost more than the rest of a row's decoding together.
extension UUID {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `6f9619ff-8b86-d011-b42d-00cf4fc964ff`: the form Postgres prints and the API shows.
    public var lowercasedString: String {
        var text = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        withUnsafeBytes(of: uuid) { bytes in
            var position = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { position += 1 }
                text[position] = Self.hexDigits[Int(byte >> 4)]
                text[position + 1] = Self.hexDigits[Int(byte & 0x0f)]
                position += 2
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses the canonical 36-character form, either case.
    init?(canonicalText text: UnsafeRawBufferPointer) {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-")
        else { return nil }
        var bytes = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).uuid
        let parsed = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var position = 0
            for index in 0..<16 {
                if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                guard let high = Self.nibble(text[position]), let low = Self.nibble(text[position + 1]) else { return false }
                output[index] = high << 4 | low
                position += 2
            }
            return true
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        case 65...70: byte - 55
        default: nil
        }
    }
}
