/// Minimal JSON writing for the few fixed shapes this module emits (problems, log lines), so
/// that key order is stable and no encoder is needed on the hot path.
enum JSONText {
    /// Appends `value` as a quoted JSON string.
    static func appendString(_ value: String, to out: inout String) {
        out.append("\"")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out.append("\\u")
                let hex = String(scalar.value, radix: 16)
                out.append(String(repeating: "0", count: 4 - hex.count))
                out.append(hex)
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }

    static func quoted(_ value: String) -> String {
        var out = ""
        appendString(value, to: &out)
        return out
    }
}
