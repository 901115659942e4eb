/// A strict RFC 8259 parser from bytes to `JSONValue`. Hand-written because Foundation's
/// decoder, driven through `Decodable` with a `try?` per candidate type, cost more than the
/// rest of a request whenever an access token was verified. Strings must be valid UTF-8 with
/// no raw control characters and no unpaired surrogate escapes; numbers must be finite
/// doubles; nothing but whitespace may follow the value; arrays and objects nest at most
/// `maxDepth` levels. A member name may appear once in an object (I-JSON, RFC 7493 §2.3): with
/// the last value winning, `{"password":"wrong","password":"right"}` would read differently
/// here than in a proxy or log that keeps the first.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var index = 0
    /// The member name that appeared twice in an object, when that is why parsing failed.
    private(set) var repeatedName: String?

    private init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// The value `bytes` hold, or nil when they are not exactly one JSON value; `repeatedName`
    /// is then the member name that appeared twice, if that was the reason.
    static func parse(_ bytes: [UInt8], maxDepth: Int, repeatedName: inout String?) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, maxDepth: maxDepth)
            defer { repeatedName = parser.repeatedName }
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? value : nil
        }
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09 {
            index += 1
        }
    }

    private mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        switch current {
        case UInt8(ascii: "{")?: return object(depth: depth + 1)
        case UInt8(ascii: "[")?: return array(depth: depth + 1)
        case UInt8(ascii: "\"")?: return string().map(JSONValue.string)
        case UInt8(ascii: "t")?: return literal("true", .bool(true))
        case UInt8(ascii: "f")?: return literal("false", .bool(false))
        case UInt8(ascii: "n")?: return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] {
            return nil
        }
        index += count
        return value
    }

    private mutating func object(depth: Int) -> JSONValue? {
        guard depth <= maxDepth else { return nil }
        index += 1  // {
        var fields: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let member = value(depth: depth) else { return nil }
            guard fields.updateValue(member, forKey: key) == nil else {
                repeatedName = key
                return nil
            }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?: index += 1; return .object(fields)
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        guard depth <= maxDepth else { return nil }
        index += 1  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?: index += 1; return .array(elements)
            default: return nil
            }
        }
    }

    /// A string starting at its opening quote.
    private mutating func string() -> String? {
        index += 1  // "
        let start = index
        // Most strings have no escapes: find the closing quote and take the bytes as they are.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        var decoded = Array(bytes[start..<index])
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard escape(into: &decoded) else { return nil }
            case ..<0x20:
                return nil
            default:
                decoded.append(byte)
            }
        }
        return nil  // no closing quote
    }

    /// One escape after its backslash, appended as UTF-8.
    private mutating func escape(into decoded: inout [UInt8]) -> Bool {
        guard let kind = current else { return false }
        index += 1
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(kind)
        case UInt8(ascii: "b"): decoded.append(0x08)
        case UInt8(ascii: "f"): decoded.append(0x0c)
        case UInt8(ascii: "n"): decoded.append(0x0a)
        case UInt8(ascii: "r"): decoded.append(0x0d)
        case UInt8(ascii: "t"): decoded.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return false }
            var scalarValue = UInt32(unit)
            if (0xd800..<0xdc00).contains(unit) {
                // A high surrogate must be followed by an escaped low one.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else { return false }
                index += 2
                guard let low = hexUnit(), (0xdc00..<0xe000).contains(low) else { return false }
                scalarValue = 0x10000 + (UInt32(unit - 0xd800) << 10) + UInt32(low - 0xdc00)
            } else if (0xdc00..<0xe000).contains(unit) {
                return false
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            UTF8.encode(scalar) { decoded.append($0) }
        default:
            return false
        }
        return true
    }

    private mutating func hexUnit() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as a finite double.
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() else { return nil }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }

    /// One or more decimal digits.
    private mutating func digits() -> Bool {
        let start = index
        while let byte = current, byte &- UInt8(ascii: "0") < 10 { index += 1 }
        return index > start
    }
}
