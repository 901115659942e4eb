import Foundation

/// A Swift type that can be read from a column. Values arrive in PostgreSQL's binary format
/// (each type's `send` form: big-endian integers, a UUID's sixteen bytes, a timestamp's
/// microseconds), which neither side has to print or parse. Decoding checks the column's type
/// and the value's size, and throws `PostgresError.decoding` on a mismatch instead of trapping.
public protocol PostgresDecodable: SendableMetatype {
    static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Self
    /// The same, for a value read from `result`; a type that keeps referring to the result's
    /// memory (`PostgresText`) implements this one, every other type gets it from the first.
    static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self
    /// The value for SQL NULL; only optionals have one.
    static func decodeNull() throws -> Self
}

extension PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self {
        try decode(value, type: type)
    }

    public static func decodeNull() throws -> Self {
        throw PostgresError(.decoding, message: "unexpected NULL for \(Self.self)")
    }

    static func mismatch(_ type: PostgresType) -> PostgresError {
        PostgresError(.decoding, message: "cannot decode \(type) as \(Self.self)")
    }

    static func malformed(_ value: UnsafeRawBufferPointer) -> PostgresError {
        PostgresError(.decoding, message: "malformed \(Self.self) value (\(value.count) bytes)")
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Self {
        try Wrapped.decode(value, type: type)
    }

    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self {
        try Wrapped.decode(value, type: type, from: result)
    }

    public static func decodeNull() throws -> Self { nil }
}

extension String: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> String {
        switch type {
        case .text, .varchar, .bpchar, .name, .unknown, .json: return String(decoding: value, as: UTF8.self)
        case .jsonb: return String(decoding: try jsonbText(value), as: UTF8.self)
        default: throw mismatch(type)
        }
    }
}

/// A `jsonb` value's text: the binary form is a format version (1) and then the text.
func jsonbText(_ value: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
    guard value.first == 1 else {
        throw PostgresError(.decoding, message: "unknown jsonb format (\(value.first.map(String.init) ?? "empty"))")
    }
    return UnsafeRawBufferPointer(rebasing: value.dropFirst())
}

extension UnsafeRawBufferPointer {
    /// The big-endian integer that fills this buffer exactly, or nil if the size is not its.
    @inline(__always)
    func bigEndian<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
        guard count == MemoryLayout<Integer>.size else { return nil }
        return Integer(bigEndian: loadUnaligned(as: Integer.self))
    }
}

extension Int64: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Int64 {
        let decoded: Int64? = switch type {
        case .int8: value.bigEndian(Int64.self)
        case .int4: value.bigEndian(Int32.self).map(Int64.init)
        case .int2: value.bigEndian(Int16.self).map(Int64.init)
        case .oidType: value.bigEndian(UInt32.self).map(Int64.init)
        default: throw mismatch(type)
        }
        guard let decoded else { throw malformed(value) }
        return decoded
    }
}

extension Int: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Int {
        Int(try Int64.decode(value, type: type))
    }
}

extension Int32: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Int32 {
        guard let narrow = Int32(exactly: try Int64.decode(value, type: type)) else {
            throw malformed(value)
        }
        return narrow
    }
}

extension Double: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Double {
        let decoded: Double? = switch type {
        case .float8: value.bigEndian(UInt64.self).map(Double.init(bitPattern:))
        case .float4: value.bigEndian(UInt32.self).map { Double(Float(bitPattern: $0)) }
        case .numeric: numericValue(value)
        case .int2, .int4, .int8: Double(try Int64.decode(value, type: type))
        default: throw mismatch(type)
        }
        guard let decoded else { throw malformed(value) }
        return decoded
    }

    /// `numeric`'s binary form: a count of base-10000 digits, the weight of the first, a sign
    /// (or NaN, ±infinity), the display scale, then the digits, each a big-endian Int16.
    private static func numericValue(_ value: UnsafeRawBufferPointer) -> Double? {
        guard value.count >= 8 else { return nil }
        func field(_ index: Int) -> Int16 {
            Int16(bigEndian: value.loadUnaligned(fromByteOffset: 2 * index, as: Int16.self))
        }
        let digits = Int(field(0)), weight = Int(field(1)), sign = UInt16(bitPattern: field(2))
        guard digits >= 0, value.count == 8 + 2 * digits else { return nil }
        switch sign {
        case 0x0000, 0x4000: break
        case 0xC000: return .nan
        case 0xD000: return .infinity
        case 0xF000: return -.infinity
        default: return nil
        }
        var magnitude = 0.0
        for index in 0..<digits {
            let digit = field(4 + index)
            guard (0..<10_000).contains(digit) else { return nil }
            magnitude = magnitude * 10_000 + Double(digit)
        }
        // Dividing by a power of ten rounds once, where multiplying by its inverse would twice.
        let exponent = weight - digits + 1
        magnitude = exponent >= 0 ? magnitude * pow(10_000, Double(exponent)) : magnitude / pow(10_000, Double(-exponent))
        return sign == 0x4000 ? -magnitude : magnitude
    }
}

extension Bool: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Bool {
        guard type == .bool else { throw mismatch(type) }
        switch value.bigEndian(UInt8.self) {
        case 1: return true
        case 0: return false
        default: throw malformed(value)
        }
    }
}

extension PostgresUUID: PostgresDecodable {
    /// Sixteen bytes, in the order the text form spells them.
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresUUID {
        guard type == .uuid else { throw mismatch(type) }
        guard value.count == 16 else { throw malformed(value) }
        return PostgresUUID(networkOrder: value)
    }
}

extension UUID: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> UUID {
        try PostgresUUID.decode(value, type: type).uuid
    }
}

extension PostgresTimestamp: PostgresDecodable {
    /// Microseconds since 2000-01-01 UTC, PostgreSQL's own epoch; `infinity` and `-infinity`
    /// are the extreme values, which no timestamp here can stand for.
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresTimestamp {
        guard type == .timestamptz else { throw mismatch(type) }
        guard let sincePostgresEpoch = value.bigEndian(Int64.self),
              sincePostgresEpoch != .max, sincePostgresEpoch != .min
        else { throw malformed(value) }
        return PostgresTimestamp(microsecondsSinceEpoch: sincePostgresEpoch + postgresEpochMicroseconds)
    }

    /// 2000-01-01T00:00:00Z in microseconds since the Unix epoch. A finite `timestamptz`
    /// lies between 4713 BC and 294276 AD, so adding this cannot overflow.
    static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000
}

extension Date: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> Date {
        try PostgresTimestamp.decode(value, type: type).date
    }
}

extension PostgresBytes: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresBytes {
        guard type == .bytea else { throw mismatch(type) }
        return PostgresBytes(Array(value))
    }
}

extension PostgresJSON: PostgresDecodable {
    public static func decode(_ value: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresJSON {
        switch type {
        case .json: return PostgresJSON(text: String(decoding: value, as: UTF8.self))
        case .jsonb: return PostgresJSON(text: String(decoding: try jsonbText(value), as: UTF8.self))
        default: throw mismatch(type)
        }
    }

    /// Decodes the document into a `Decodable` type.
    public func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw PostgresError(.decoding, message: "JSON does not decode as \(Value.self)")
        }
    }
}
