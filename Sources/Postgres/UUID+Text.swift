import Foundation

/// UUIDs to and from their lowercase text form without Foundation's formatter and scanner,
/// which cost more than the rest of a row's decoding together.
extension UUID {
    /// `6f9619ff-8b86-d011-b42d-00cf4fc964ff`: the form Postgres prints and the API shows.
    public var lowercasedString: String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            return writeLowercased(into: base)
        }
    }

    /// The length of the canonical text form.
    @inlinable public static var textLength: Int { 36 }

    /// Writes `lowercasedString`'s 36 bytes at `text` without making a `String`; returns 36.
    /// Unrolled: it runs for every id of every row a response shows.
    @discardableResult
    public func writeLowercased(into text: UnsafeMutablePointer<UInt8>) -> Int {
        func hex(_ byte: UInt8, at position: Int) {
            text[position] = lowercaseHexDigit(byte >> 4)
            text[position + 1] = lowercaseHexDigit(byte & 0x0f)
        }
        let bytes = uuid
        hex(bytes.0, at: 0); hex(bytes.1, at: 2); hex(bytes.2, at: 4); hex(bytes.3, at: 6)
        text[8] = UInt8(ascii: "-")
        hex(bytes.4, at: 9); hex(bytes.5, at: 11)
        text[13] = UInt8(ascii: "-")
        hex(bytes.6, at: 14); hex(bytes.7, at: 16)
        text[18] = UInt8(ascii: "-")
        hex(bytes.8, at: 19); hex(bytes.9, at: 21)
        text[23] = UInt8(ascii: "-")
        hex(bytes.10, at: 24); hex(bytes.11, at: 26); hex(bytes.12, at: 28)
        hex(bytes.13, at: 30); hex(bytes.14, at: 32); hex(bytes.15, at: 34)
        return Self.textLength
    }

    /// Parses the canonical 36-character form, either case.
    init?(canonicalText text: UnsafeRawBufferPointer) {
        guard text.count == 36, text[8] == UInt8(ascii: "-"), text[13] == UInt8(ascii: "-"),
              text[18] == UInt8(ascii: "-"), text[23] == UInt8(ascii: "-")
        else { return nil }
        var invalid: UInt8 = 0
        // Two hex digits per byte, skipping the dashes.
        let bytes: uuid_t = (
            Self.byte(text, 0, &invalid), Self.byte(text, 2, &invalid), Self.byte(text, 4, &invalid),
            Self.byte(text, 6, &invalid), Self.byte(text, 9, &invalid), Self.byte(text, 11, &invalid),
            Self.byte(text, 14, &invalid), Self.byte(text, 16, &invalid), Self.byte(text, 19, &invalid),
            Self.byte(text, 21, &invalid), Self.byte(text, 24, &invalid), Self.byte(text, 26, &invalid),
            Self.byte(text, 28, &invalid), Self.byte(text, 30, &invalid), Self.byte(text, 32, &invalid),
            Self.byte(text, 34, &invalid))
        guard invalid == 0 else { return nil }
        self.init(uuid: bytes)
    }

    /// Parses the canonical form from a string, such as a path parameter; nil for anything else.
    public init?(canonical text: String) {
        var text = text
        guard let id = text.withUTF8({ UUID(canonicalText: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = id
    }

    /// The byte spelled by the two hex digits at `position`; a digit that is not one sets
    /// bits in `invalid`.
    @inline(__always)
    private static func byte(_ text: UnsafeRawBufferPointer, _ position: Int, _ invalid: inout UInt8) -> UInt8 {
        nibble(text[position], &invalid) << 4 | nibble(text[position + 1], &invalid)
    }

    /// A hex digit's value, either case; a byte that is not a hex digit sets `invalid`.
    /// Without branches: ids are random, so a branch on digit-or-letter would be mispredicted
    /// for every other character.
    @inline(__always)
    private static func nibble(_ byte: UInt8, _ invalid: inout UInt8) -> UInt8 {
        let isDigit = byte &- UInt8(ascii: "0") < 10
        let isLetter = (byte | 0x20) &- UInt8(ascii: "a") < 6  // folds A-F onto a-f
        invalid |= (isDigit ? 0 : 1) & (isLetter ? 0 : 1)
        // '0'-'9' are 0x30-0x39 and 'a'-'f' / 'A'-'F' are 0x61-0x66 / 0x41-0x46: the low
        // nibble, plus 9 for letters (bit 6 set).
        return (byte & 0x0f) &+ 9 &* (byte >> 6)
    }
}

/// A nibble as a lowercase hex digit, for the text forms this module writes.
@inline(__always)
func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? nibble &+ 48 : nibble &+ 87
}
