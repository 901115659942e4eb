import Postgres

/// A place in a list ordered by `(timestamp, id)`.
package struct KeysetPosition: Comparable, Sendable {
    var timestamp: PostgresTimestamp
    var id: PostgresUUID

    /// Before every row in a descending list; after every row in an ascending one.
    package static let top = KeysetPosition(timestamp: PostgresTimestamp(microsecondsSinceEpoch: 253_402_300_799_999_999),  // 9999-12-31
                                     id: .max)
    package static let bottom = KeysetPosition(timestamp: PostgresTimestamp(microsecondsSinceEpoch: -62_135_596_800_000_000),  // 0001-01-01
                                        id: .zero)

    func append(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: timestamp.microsecondsSinceEpoch.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: id.high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: id.low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package init(timestamp: PostgresTimestamp, id: PostgresUUID) {
        self.timestamp = timestamp
        self.id = id
    }

    /// PostgreSQL's order of `(created_at, id)`: by time, then by the id's bytes, which is the
    /// order of its two words.
    package static func < (lhs: KeysetPosition, rhs: KeysetPosition) -> Bool {
        (lhs.timestamp, lhs.id.high, lhs.id.low) < (rhs.timestamp, rhs.id.high, rhs.id.low)
    }

    /// Reads the 24 bytes `append` wrote.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 24 else { return nil }
        let start = bytes.startIndex
        var micros: Int64 = 0
        for byte in bytes[start..<(start + 8)] { micros = micros << 8 | Int64(byte) }
        var high: UInt64 = 0, low: UInt64 = 0
        for byte in bytes[(start + 8)..<(start + 16)] { high = high << 8 | UInt64(byte) }
        for byte in bytes[(start + 16)..<(start + 24)] { low = low << 8 | UInt64(byte) }
        guard (Self.bottom.timestamp.microsecondsSinceEpoch...Self.top.timestamp.microsecondsSinceEpoch).contains(micros) else {
            return nil
        }
        timestamp = PostgresTimestamp(microsecondsSinceEpoch: micros)
        id = PostgresUUID(high: high, low: low)
    }
}
