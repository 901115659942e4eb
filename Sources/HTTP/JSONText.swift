/// JSON string escaping into bytes, for the fixed shapes this module emits (problems, log
/// lines) and for the service's response writers: key order stays stable and no encoder is
/// needed on the hot path. Control characters, quotes and backslashes are escaped; U+2028
/// and U+2029 pass through, as JSON allows.
public enum JSONText {
    /// Appends `value` as a quoted JSON string, copying runs that need no escaping in one go.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                switch byte {
                case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
                case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
                case UInt8(ascii: "\n"): out.append(contentsOf: [92, 110])
                case UInt8(ascii: "\r"): out.append(contentsOf: [92, 114])
                case UInt8(ascii: "\t"): out.append(contentsOf: [92, 116])
                default: out.append(contentsOf: [92, 117, 48, 48, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xf)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
