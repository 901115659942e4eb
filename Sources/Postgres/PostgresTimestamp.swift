import Foundation

/// A `timestamptz` at the database's full precision: microseconds since the Unix epoch.
/// `Date` is a floating-point number and can lose the last microsecond; keyset cursors
/// need the exact value back, so they carry this type.
public struct PostgresTimestamp: Hashable, Comparable, Sendable, PostgresEncodable {
    public var microsecondsSinceEpoch: Int64

    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    public init(_ date: Date) {
        microsecondsSinceEpoch = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    public var date: Date {
        Date(timeIntervalSince1970: Double(microsecondsSinceEpoch) / 1_000_000)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    /// ISO 8601 with microseconds and an explicit UTC offset, which the server parses exactly.
    public var postgresText: String { text(fraction: true) }

    /// Seconds precision, `2026-11-30T10:53:13Z`: the form the API shows clients.
    public var iso8601Seconds: String { text(fraction: false) }

    /// The most bytes `writeISO8601Seconds(into:)` writes: years past 9999 take more digits.
    @inlinable public static var maximumTextLength: Int { 48 }

    /// Writes `iso8601Seconds` at `text`, which has room for `maximumTextLength` bytes, and
    /// returns how many bytes it wrote: for writers that build bytes rather than strings.
    public func writeISO8601Seconds(into text: UnsafeMutablePointer<UInt8>) -> Int {
        writeText(fraction: false, into: text)
    }

    private func text(fraction: Bool) -> String {
        String(unsafeUninitializedCapacity: Self.maximumTextLength) { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            return writeText(fraction: fraction, into: base)
        }
    }

    /// Written digit by digit: `String(format:)` goes through Foundation's formatter, which
    /// costs more than decoding the whole row.
    private func writeText(fraction: Bool, into text: UnsafeMutablePointer<UInt8>) -> Int {
        let (days, micros) = microsecondsSinceEpoch.floorDivided(by: 86_400_000_000)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        let seconds = micros / 1_000_000
        var written = 0
        func put(_ byte: UInt8) {
            text[written] = byte
            written += 1
        }
        func two(_ value: Int64) {  // 0...99
            put(UInt8(truncatingIfNeeded: 48 + value / 10))
            put(UInt8(truncatingIfNeeded: 48 + value % 10))
        }
        if (0...9999).contains(year) {
            two(year / 100)
            two(year % 100)
        } else {  // wider than the field: every digit, and the sign
            for byte in String(year).utf8 { put(byte) }
        }
        put(UInt8(ascii: "-")); two(month)
        put(UInt8(ascii: "-")); two(day)
        put(UInt8(ascii: "T")); two(seconds / 3600)
        put(UInt8(ascii: ":")); two(seconds / 60 % 60)
        put(UInt8(ascii: ":")); two(seconds % 60)
        if fraction {
            put(UInt8(ascii: "."))
            let fractional = micros % 1_000_000
            two(fractional / 10_000); two(fractional / 100 % 100); two(fractional % 100)
        }
        put(UInt8(ascii: "Z"))
        return written
    }
}

private extension Int64 {
    /// Division rounding toward negative infinity, with a non-negative remainder.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = self / divisor - (self % divisor < 0 ? 1 : 0)
        return (quotient, self - quotient * divisor)
    }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (H. Hinnant's algorithm).
private func civilDate(fromDaysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let mp = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}
