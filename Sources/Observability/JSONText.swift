/// JSON string escaping into bytes, for fixed shapes (log lines, problem responses) and for the
/// service's response writers: key order stays stable and no encoder is needed on the hot
/// path. Control characters, quotes and backslashes are escaped; U+2028 and U+2029 pass
/// through, as JSON allows.
public enum JSONText {
    /// Appends `value` as a quoted JSON string.
    public static func appendString(_ value: String, to out: inout [UInt8]) {
        var text = value
        text.withUTF8 { utf8 in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumQuotedLength(utf8.count)) { scratch in
                guard let base = scratch.baseAddress else { return }
                out.append(contentsOf: UnsafeBufferPointer(start: base, count: writeQuoted(utf8, into: base)))
            }
        }
    }

    /// The most bytes `writeQuoted` writes for `count` bytes of text: quotes, and six bytes
    /// (`\u001f`) for each byte at worst.
    public static func maximumQuotedLength(_ count: Int) -> Int { 6 * count + 2 }

    /// The most bytes `writeInteger` writes: a sign and 19 digits.
    public static var maximumIntegerLength: Int { 20 }

    /// Writes `value` in decimal at `out`, which has room for `maximumIntegerLength` bytes,
    /// and returns how many it wrote.
    public static func writeInteger(_ value: Int, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var digits = 0
        repeat {
            digits += 1
            magnitude /= 10
        } while magnitude > 0
        var position = digits + (value < 0 ? 1 : 0)
        let length = position
        if value < 0 { out[0] = UInt8(ascii: "-") }
        magnitude = value.magnitude
        repeat {
            position -= 1
            out[position] = UInt8(truncatingIfNeeded: 48 + magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        return length
    }

    /// Writes `utf8` as a quoted JSON string at `out`, which has room for
    /// `maximumQuotedLength(utf8.count)` bytes, and returns how many it wrote. Runs that need
    /// no escaping are copied in one go.
    public static func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        // Most values (names, ids, ordinary text) need no escaping: check that first, a word
        // at a time, and copy them whole.
        if let base = utf8.baseAddress, !needsEscape(utf8) {
            out[0] = UInt8(ascii: "\"")
            (out + 1).update(from: base, count: utf8.count)
            out[utf8.count + 1] = UInt8(ascii: "\"")
            return utf8.count + 2
        }
        var written = 0
        func put(_ byte: UInt8) {
            out[written] = byte
            written += 1
        }
        func copy(_ from: Int, _ to: Int) {
            guard to > from, let base = utf8.baseAddress else { return }
            (out + written).update(from: base + from, count: to - from)
            written += to - from
        }
        put(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        while index < utf8.count {
            // Eight bytes at a time while none of them needs escaping: most text has nothing
            // to escape, and a post's body is scanned on every read of it.
            if let base = utf8.baseAddress {
                while index + 8 <= utf8.count,
                      !needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                    index += 8
                }
            }
            guard index < utf8.count else { break }
            let byte = utf8[index]
            index += 1
            guard needsEscape(byte: byte) else { continue }
            copy(runStart, index - 1)
            runStart = index
            put(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): put(byte)
            case UInt8(ascii: "\n"): put(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): put(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): put(UInt8(ascii: "t"))
            default:
                put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
                put(hexDigit(byte >> 4)); put(hexDigit(byte & 0xf))
            }
        }
        copy(runStart, utf8.count)
        put(UInt8(ascii: "\""))
        return written
    }

    /// Whether any byte of `utf8` is a control character, a quote or a backslash. The last
    /// word overlaps the one before it rather than being read byte by byte.
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return false }
        let count = utf8.count
        guard count >= 8 else {
            return utf8.contains(where: needsEscape(byte:))
        }
        var index = 0
        while index + 8 <= count {
            if needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return true }
            index += 8
        }
        return index < count && needsEscape(UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self))
    }

    /// Whether one byte is a control character, a quote or a backslash.
    @inline(__always)
    static func needsEscape(byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any of eight bytes is a control character, a quote or a backslash: the classic
    /// "has a byte below n" test, `(v - n·0x01…) & ~v & 0x80…`, with n = 0x20 on the bytes
    /// and n = 1 on the bytes XORed with `"` and with `\` (which zeroes the byte sought).
    /// Bytes of 0x80 and above never match, so UTF-8 sequences pass.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return (control | ((quote &- ones) & ~quote & highs) | ((backslash &- ones) & ~backslash & highs)) != 0
    }

    /// A nibble as a lowercase hex digit.
    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? nibble &+ 48 : nibble &+ 87
    }
}
