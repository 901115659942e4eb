import Foundation

/// A Swift type that can be read from a column in text format. Decoding checks the column's
/// type and the text, and throws `PostgresError.decoding` on a mismatch instead of trapping.
public protocol PostgresDecodable {
    static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Self
    /// The same, for a value read from `result`; a type that keeps referring to the result's
    /// memory (`PostgresText`) implements this one, every other type gets it from the first.
    static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self
    /// The value for SQL NULL; only optionals have one.
    static func decodeNull() throws -> Self
}

extension PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self {
        try decode(text, type: type)
    }

    public static func decodeNull() throws -> Self {
        throw PostgresError(.decoding, message: "unexpected NULL for \(Self.self)")
    }

    static func mismatch(_ type: PostgresType) -> PostgresError {
        PostgresError(.decoding, message: "cannot decode \(type) as \(Self.self)")
    }

    static func malformed(_ text: UnsafeRawBufferPointer) -> PostgresError {
        PostgresError(.decoding, message: "malformed \(Self.self) value (\(text.count) bytes)")
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Self {
        try Wrapped.decode(text, type: type)
    }

    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType, from result: PostgresResult) throws -> Self {
        try Wrapped.decode(text, type: type, from: result)
    }

    public static func decodeNull() throws -> Self { nil }
}

extension String: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> String {
        switch type {
        case .text, .varchar, .bpchar, .name, .unknown, .json, .jsonb: break
        default: throw mismatch(type)
        }
        return String(decoding: text, as: UTF8.self)
    }
}

extension Int64: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Int64 {
        guard type == .int8 || type == .int4 || type == .int2 || type == .oidType else {
            throw mismatch(type)
        }
        var negative = false
        var value: Int64 = 0
        for (index, byte) in text.enumerated() {
            if index == 0, byte == UInt8(ascii: "-") {
                negative = true
                continue
            }
            let digit = byte &- 48
            guard digit < 10 else { throw malformed(text) }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { throw malformed(text) }
            value = next  // accumulated negatively so Int64.min fits
        }
        guard !text.isEmpty, !(negative && text.count == 1) else { throw malformed(text) }
        if negative { return value }
        guard value != .min else { throw malformed(text) }
        return -value
    }
}

extension Int: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Int {
        Int(try Int64.decode(text, type: type))
    }
}

extension Int32: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Int32 {
        guard let value = Int32(exactly: try Int64.decode(text, type: type)) else {
            throw malformed(text)
        }
        return value
    }
}

extension Double: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Double {
        guard [.float4, .float8, .numeric, .int2, .int4, .int8].contains(type) else {
            throw mismatch(type)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)) else { throw malformed(text) }
        return value
    }
}

extension Bool: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Bool {
        guard type == .bool else { throw mismatch(type) }
        switch text.first {
        case UInt8(ascii: "t") where text.count == 1: return true
        case UInt8(ascii: "f") where text.count == 1: return false
        default: throw malformed(text)
        }
    }
}

extension UUID: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> UUID {
        guard type == .uuid else { throw mismatch(type) }
        guard let uuid = UUID(canonicalText: text) else { throw malformed(text) }
        return uuid
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresTimestamp {
        guard type == .timestamptz else { throw mismatch(type) }
        guard let value = PostgresTimestamp(postgresText: text) else { throw malformed(text) }
        return value
    }
}

extension Date: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> Date {
        try PostgresTimestamp.decode(text, type: type).date
    }
}

extension PostgresBytes: PostgresDecodable {
    /// `bytea` in the server's default hex output format (`\x0a1b…`).
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresBytes {
        guard type == .bytea else { throw mismatch(type) }
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
              text.count % 2 == 0
        else { throw malformed(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index < text.count {
            guard let high = hexValue(text[index]), let low = hexValue(text[index + 1]) else {
                throw malformed(text)
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return PostgresBytes(bytes)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 97...102: byte - 87
        case 65...70: byte - 55
        default: nil
        }
    }
}

extension PostgresJSON: PostgresDecodable {
    public static func decode(_ text: UnsafeRawBufferPointer, type: PostgresType) throws -> PostgresJSON {
        guard type == .json || type == .jsonb else { throw mismatch(type) }
        return PostgresJSON(text: String(decoding: text, as: UTF8.self))
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
