#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the request line and fields libmicrohttpd hands over account for every byte of the
/// head it read.
///
/// libmicrohttpd 0.9.75 parses a head in place: it writes NUL over the request line's spaces,
/// each field's colon and each line's CRLF, and hands out pointers into that buffer. Some
/// malformed heads it rewrites instead of refusing, and then the pointers no longer tile the
/// bytes it counted: a NUL ends a value early (the rest of the line is skipped), an obsolete
/// folded line is copied onto the field's name elsewhere, a line with an empty name ends the
/// fields early, and a bare CR or LF ends a line in one byte instead of two. So a head is read
/// as sent only when, from the request line on, each field begins where the previous line's
/// CRLF ended, each value follows its name's colon past spaces and tabs only, and the last line's
/// CRLF and the empty line end exactly where libmicrohttpd's count of the head's bytes does.
/// No byte is read outside the head.
struct HeadLayout {
    /// Where the next field's name must begin; nil once the layout is broken.
    private var next: UnsafePointer<CChar>?
    /// One past the head's last byte.
    private let end: UnsafePointer<CChar>

    /// - Parameters:
    ///   - method: the request line's first byte, where libmicrohttpd's method string begins.
    ///   - targetBytes: the request target's length as sent, before libmicrohttpd unescaped it.
    ///   - version: the protocol version string, the request line's last word.
    ///   - headBytes: the head's length as libmicrohttpd counted it, empty line included.
    init(method: UnsafePointer<CChar>, targetBytes: Int, version: UnsafePointer<CChar>, headBytes: Int) {
        end = method + headBytes
        // One space on each side of the target (RFC 9112 §3), then CRLF.
        let versionWhereSent = method + strlen(method) + 1 + targetBytes + 1
        next = headBytes > 0 && version == versionWhereSent ? version + strlen(version) + 2 : nil
    }

    mutating func field(name: UnsafePointer<CChar>, nameBytes: Int, value: UnsafePointer<CChar>?, valueBytes: Int) {
        guard let expected = next, name == expected, let value else {
            next = nil
            return
        }
        let afterColon = name + nameBytes + 1
        guard value >= afterColon, value <= end,
              UnsafeBufferPointer(start: afterColon, count: afterColon.distance(to: value))
                  .allSatisfy({ $0 == 0x20 || $0 == 0x09 })
        else {
            next = nil
            return
        }
        next = value + valueBytes + 2
    }

    var isIntact: Bool {
        guard let next else { return false }
        return next + 2 == end
    }
}
