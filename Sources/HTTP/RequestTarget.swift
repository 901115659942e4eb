/// Splits an origin-form request target (`/path?query`) into a decoded path and query.
/// libmicrohttpd's own decoding is not used: the raw target keeps `%2B` and `+` apart in the
/// query, and its length is what the URL limit is checked against.
struct RequestTarget: Equatable {
    var path: String
    var query: [String: String]

    /// Nil unless `raw` starts with `/` (absolute-form and `*` are not served).
    init?(_ raw: Substring.UTF8View) {
        guard raw.first == UInt8(ascii: "/") else { return nil }
        var end = raw.endIndex
        if let hash = raw.firstIndex(of: UInt8(ascii: "#")) { end = hash }
        let target = raw[raw.startIndex..<end]
        if let mark = target.firstIndex(of: UInt8(ascii: "?")) {
            path = Self.decode(target[target.startIndex..<mark], plusIsSpace: false)
            query = Self.parseQuery(target[target.index(after: mark)...])
        } else {
            path = Self.decode(target, plusIsSpace: false)
            query = [:]
        }
    }

    init?(_ raw: String) {
        self.init(Substring(raw).utf8)
    }

    /// `a=1&b=2&a=3` → `["a": "1", "b": "2"]`: the first value of a key wins.
    static func parseQuery(_ query: Substring.UTF8View) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let key: String
            let value: String
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                key = decode(pair[pair.startIndex..<equals], plusIsSpace: true)
                value = decode(pair[pair.index(after: equals)...], plusIsSpace: true)
            } else {
                key = decode(pair, plusIsSpace: true)
                value = ""
            }
            if !key.isEmpty && result[key] == nil { result[key] = value }
        }
        return result
    }

    /// Percent-decodes; a `%` not followed by two hex digits stays as it is. Invalid UTF-8
    /// becomes U+FFFD rather than an error.
    static func decode<Bytes: Collection>(_ bytes: Bytes, plusIsSpace: Bool) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let high = hexValue(bytes[first]), let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if plusIsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
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
