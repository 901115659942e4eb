/// Splits an origin-form request target (`/path?query`) into a decoded path and query.
/// libmicrohttpd's own decoding is not used: the raw target keeps `%2B` and `+` apart in the
/// query, and its length is what the URL limit is checked against.
struct RequestTarget: Equatable {
    var path: String
    var query: [String: String]

    /// Nil unless `raw` starts with `/` (absolute-form and `*` are not served). Works on the
    /// target's bytes in place: it is parsed for every request.
    init?(_ raw: String) {
        var raw = raw
        guard let parsed = raw.withUTF8({ Self.parse(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = parsed
    }

    private init(path: String, query: [String: String]) {
        self.path = path
        self.query = query
    }

    private static func parse(_ raw: UnsafeRawBufferPointer) -> RequestTarget? {
        guard raw.first == UInt8(ascii: "/") else { return nil }
        let target = raw[..<(raw.firstIndex(of: UInt8(ascii: "#")) ?? raw.endIndex)]
        guard let mark = target.firstIndex(of: UInt8(ascii: "?")) else {
            return RequestTarget(path: decode(target, plusIsSpace: false), query: [:])
        }
        return RequestTarget(
            path: decode(target[..<mark], plusIsSpace: false),
            query: parseQuery(target[(mark + 1)...]))
    }

    /// `a=1&b=2&a=3` → `["a": "1", "b": "2"]`: the first value of a key wins.
    static func parseQuery(_ query: Slice<UnsafeRawBufferPointer>) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let key: String
            let value: String
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                key = decode(pair[..<equals], plusIsSpace: true)
                value = decode(pair[(equals + 1)...], plusIsSpace: true)
            } else {
                key = decode(pair, plusIsSpace: true)
                value = ""
            }
            if !key.isEmpty && result[key] == nil { result[key] = value }
        }
        return result
    }

    /// Percent-decodes; a `%` not followed by two hex digits stays as it is. Invalid UTF-8
    /// becomes U+FFFD rather than an error. Text with nothing to decode, like most paths, is
    /// taken as it is.
    static func decode(_ bytes: Slice<UnsafeRawBufferPointer>, plusIsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
