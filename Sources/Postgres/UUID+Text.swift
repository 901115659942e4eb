import Foundation

/// UUIDs to and from their lowercase text form without Foundation's formatter and scanner,
/// which cost more than the rest of a row's decoding together.
extension UUID {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `6f9619ff-8b86-d011-b42d-00cf4fc964ff`: the form Postgres prints and the API shows.
    public var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeLowercased(into: UnsafeMutableRawBufferPointer(buffer))
            return 36
        }
    }

    /// Appends `lowercasedString`'s 36 bytes to a buffer without making a `String`.
    public func appendLowercased(to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: 36, alignment: 1) { text in
            writeLowercased(into: text)
            bytes.append(contentsOf: text)
        }
    }

    private func writeLowercased(into text: UnsafeMutableRawBufferPointer) {
        withUnsafeBytes(of: uuid) { bytes in
            Self.hexDigits.withUnsafeBufferPointer { hex in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    let byte = bytes[index]
                    text[position] = hex[Int(byte >> 4)]
                    text[position + 1] = hex[Int(byte & 0x0f)]
                    position += 2
                }
            }
        }
    }

    /// Parses the canonical 36-character form, either case.
    init?(canonicalText text: UnsafeRawBufferPointer) {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-")
        else { return nil }
        var bytes = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).uuid
        let parsed = Self.nibbles.withUnsafeBufferPointer { table in
            withUnsafeMutableBytes(of: &bytes) { output -> Bool in
                var invalid: UInt8 = 0
                for index in 0..<16 {
                    // Two hex digits per byte, skipping the dashes before bytes 4, 6, 8 and 10.
                    var position = index * 2
                    if index >= 4 { position += 1 }
                    if index >= 6 { position += 1 }
                    if index >= 8 { position += 1 }
                    if index >= 10 { position += 1 }
                    let high = table[Int(text[position])], low = table[Int(text[position + 1])]
                    invalid |= high | low
                    output[index] = high << 4 | low
                }
                return invalid & 0xf0 == 0
            }
        }
        guard parsed else { return nil }
        self.init(uuid: bytes)
    }

    /// Parses the canonical form from a string, such as a path parameter; nil for anything else.
    public init?(canonical text: String) {
        var text = text
        guard let id = text.withUTF8({ UUID(canonicalText: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = id
    }

    /// Each byte's value as a hex digit, or 0xff for bytes that are not one.
    private static let nibbles: [UInt8] = (0..<256).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xff
        }
    }
}
