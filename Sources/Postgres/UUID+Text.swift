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
    /// Unrolled, two digits per table load and store: it runs for every id of every row a
    /// response shows.
    @discardableResult
    public func writeLowercased(into text: UnsafeMutablePointer<UInt8>) -> Int {
        let pairs = lowercaseHexPairs
        let raw = UnsafeMutableRawPointer(text)
        @inline(__always) func hex(_ byte: UInt8, at position: Int) {
            raw.storeBytes(of: pairs[Int(byte)], toByteOffset: position, as: UInt16.self)
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
        guard text.count == 36, let base = text.baseAddress else { return nil }
        let characters = base.assumingMemoryBound(to: UInt8.self)
        guard characters[8] == UInt8(ascii: "-"), characters[13] == UInt8(ascii: "-"),
              characters[18] == UInt8(ascii: "-"), characters[23] == UInt8(ascii: "-")
        else { return nil }
        let values = hexDigitValues
        // Any byte that is not a hex digit looks up 0xf0, which sets a high bit here.
        var invalid: UInt8 = 0
        // The byte spelled by the two hex digits at `position`.
        @inline(__always) func byte(_ position: Int) -> UInt8 {
            let high = values[Int(characters[position])], low = values[Int(characters[position + 1])]
            invalid |= high | low
            return high << 4 | low
        }
        // Two hex digits per byte, skipping the dashes.
        let bytes: uuid_t = (
            byte(0), byte(2), byte(4), byte(6), byte(9), byte(11), byte(14), byte(16),
            byte(19), byte(21), byte(24), byte(26), byte(28), byte(30), byte(32), byte(34))
        guard invalid & 0xf0 == 0 else { return nil }
        self.init(uuid: bytes)
    }

    /// Parses the canonical form from a string, such as a path parameter; nil for anything else.
    public init?(canonical text: String) {
        var text = text
        guard let id = text.withUTF8({ UUID(canonicalText: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = id
    }
}

/// Each byte's value as a hex digit, either case; 0xf0 for a byte that is not one. A table
/// rather than comparisons: ids are random, so a branch on digit-or-letter would be
/// mispredicted for every other character, and the branchless arithmetic took three times the
/// instructions. Made once and never freed: a pointer, unlike an array, is read without a
/// retain and release around every use. Never written after it is made, so sharing it across
/// threads is safe, which the compiler cannot see through a pointer.
nonisolated(unsafe) private let hexDigitValues: UnsafePointer<UInt8> = {
    let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for byte in 0...255 {
        table[byte] = switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xf0
        }
    }
    return UnsafePointer(table)
}()

/// Each byte as its two lowercase hex digits, laid out in memory in writing order; made once
/// and never freed, like `hexDigitValues`.
nonisolated(unsafe) private let lowercaseHexPairs: UnsafePointer<UInt16> = {
    let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 256)
    for byte in 0...255 {
        let first = UInt16(lowercaseHexDigit(UInt8(byte >> 4))), second = UInt16(lowercaseHexDigit(UInt8(byte & 0x0f)))
        table[byte] = (first | second << 8).littleEndian
    }
    return UnsafePointer(table)
}()

/// A nibble as a lowercase hex digit, for the text forms this module writes.
@inline(__always)
func lowercaseHexDigit(_ nibble: UInt8) -> UInt8 {
    nibble < 10 ? nibble &+ 48 : nibble &+ 87
}
