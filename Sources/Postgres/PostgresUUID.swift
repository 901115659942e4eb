import Foundation

/// A PostgreSQL `uuid`: its sixteen bytes as two words, read in network order.
///
/// Rows carry ids in every column that names a user, post or comment, and a page reads and
/// writes dozens of them. Foundation's `UUID` is built for library evolution, so each one made
/// or read costs a call into Foundation and copies through memory; this type is two plain
/// words the compiler sees through. `uuid` converts to Foundation's type where one is needed.
public struct PostgresUUID: Hashable, Sendable, CustomStringConvertible {
    /// Bytes 0 to 7, the first in the most significant place.
    public let high: UInt64
    /// Bytes 8 to 15.
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ uuid: UUID) {
        var bytes = uuid.uuid
        self = withUnsafeBytes(of: &bytes) { PostgresUUID(networkOrder: $0) }
    }

    /// The sixteen bytes at `raw`, in the order the text form spells them. `raw` holds at
    /// least sixteen bytes.
    @inline(__always)
    init(networkOrder raw: UnsafeRawBufferPointer) {
        high = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
        low = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// Foundation's form of the same id.
    public var uuid: UUID {
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { writeNetworkOrder(into: $0) }
        return UUID(uuid: bytes)
    }

    /// Writes the sixteen bytes into `raw`, which has room for them.
    private func writeNetworkOrder(into raw: UnsafeMutableRawBufferPointer) {
        raw.storeBytes(of: high.bigEndian, as: UInt64.self)
        raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// All zero bits and all one bits: below and above every other id.
    public static let zero = PostgresUUID(high: 0, low: 0)
    public static let max = PostgresUUID(high: .max, low: .max)

    public var description: String { lowercasedString }

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
    /// Two digits per table load and store: it runs for every id of every row a response
    /// shows.
    @discardableResult
    public func writeLowercased(into text: UnsafeMutablePointer<UInt8>) -> Int {
        let pairs = lowercaseHexPairs
        let raw = UnsafeMutableRawPointer(text)
        // The byte `shift` bits up in `word`, as two digits at `position`.
        @inline(__always) func hex(_ word: UInt64, _ shift: UInt64, at position: Int) {
            raw.storeBytes(of: pairs[Int(truncatingIfNeeded: word &>> shift) & 0xff], toByteOffset: position, as: UInt16.self)
        }
        hex(high, 56, at: 0); hex(high, 48, at: 2); hex(high, 40, at: 4); hex(high, 32, at: 6)
        text[8] = UInt8(ascii: "-")
        hex(high, 24, at: 9); hex(high, 16, at: 11)
        text[13] = UInt8(ascii: "-")
        hex(high, 8, at: 14); hex(high, 0, at: 16)
        text[18] = UInt8(ascii: "-")
        hex(low, 56, at: 19); hex(low, 48, at: 21)
        text[23] = UInt8(ascii: "-")
        hex(low, 40, at: 24); hex(low, 32, at: 26); hex(low, 24, at: 28)
        hex(low, 16, at: 30); hex(low, 8, at: 32); hex(low, 0, at: 34)
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
        @inline(__always) func byte(_ position: Int) -> UInt64 {
            let high = values[Int(characters[position])], low = values[Int(characters[position + 1])]
            invalid |= high | low
            return UInt64(high << 4 | low)
        }
        // Two hex digits per byte, skipping the dashes.
        let high = byte(0) << 56 | byte(2) << 48 | byte(4) << 40 | byte(6) << 32
            | byte(9) << 24 | byte(11) << 16 | byte(14) << 8 | byte(16)
        let low = byte(19) << 56 | byte(21) << 48 | byte(24) << 40 | byte(26) << 32
            | byte(28) << 24 | byte(30) << 16 | byte(32) << 8 | byte(34)
        guard invalid & 0xf0 == 0 else { return nil }
        self.init(high: high, low: low)
    }

    /// Parses the canonical form from a string, such as a path parameter; nil for anything else.
    public init?(canonical text: String) {
        var text = text
        guard let id = text.withUTF8({ PostgresUUID(canonicalText: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = id
    }
}

extension UUID {
    /// The lowercase canonical form, as `PostgresUUID` writes it.
    public var lowercasedString: String { PostgresUUID(self).lowercasedString }
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
