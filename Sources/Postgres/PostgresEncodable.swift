import Foundation

/// A Swift value that can be sent as a statement parameter, in PostgreSQL's text format.
public protocol PostgresEncodable: Sendable {
    var postgresText: String { get }
}

extension String: PostgresEncodable {
    public var postgresText: String { self }
}

extension Substring: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int32: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Int64: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Double: PostgresEncodable {
    public var postgresText: String { String(self) }
}

extension Bool: PostgresEncodable {
    public var postgresText: String { self ? "t" : "f" }
}

extension PostgresUUID: PostgresEncodable {
    public var postgresText: String { lowercasedString }
}

extension UUID: PostgresEncodable {
    public var postgresText: String { lowercasedString }
}

extension Date: PostgresEncodable {
    public var postgresText: String { PostgresTimestamp(self).postgresText }
}

/// `bytea`, sent in hex format.
public struct PostgresBytes: PostgresEncodable, Hashable {
    public var bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var postgresText: String {
        var text = "\\x"
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.unicodeScalars.append(Unicode.Scalar(lowercaseHexDigit(byte >> 4)))
            text.unicodeScalars.append(Unicode.Scalar(lowercaseHexDigit(byte & 0x0f)))
        }
        return text
    }
}

/// A JSON document sent as text; the statement casts it (`\(json)::jsonb`).
public struct PostgresJSON: PostgresEncodable, Hashable {
    public var text: String
    public init(text: String) { self.text = text }
    public init<Value: Encodable>(encoding value: Value) throws {
        let data = try JSONEncoder().encode(value)
        self.text = String(decoding: data, as: UTF8.self)
    }
    public var postgresText: String { text }
}

/// Text arrays (`text[]`, `uuid[]`): every element quoted, so no element can break out.
extension Array: PostgresEncodable where Element: PostgresEncodable {
    public var postgresText: String {
        var text = "{"
        for (index, element) in enumerated() {
            if index > 0 { text += "," }
            text += "\""
            for character in element.postgresText {
                if character == "\"" || character == "\\" { text += "\\" }
                text.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}
