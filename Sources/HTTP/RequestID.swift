import Synchronization

/// The rules for request ids: a client's `X-Request-ID` is echoed only when it is short and
/// plain, so that it is safe to put in logs and headers; otherwise a fresh one is made.
public enum RequestID {
    public static let headerName = "X-Request-ID"
    public static let maxLength = 128

    /// The id to use for a request carrying `headers`.
    public static func resolve(_ headers: HTTPHeaders) -> String {
        if let given = headers[headerName], isAcceptable(given) { return given }
        return generate()
    }

    /// At most 128 characters of `[A-Za-z0-9._-]`, not empty.
    public static func isAcceptable(_ id: String) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// 32 lowercase hex digits: 64 random bits chosen once per process, then a 64-bit
    /// sequence number. Unique across processes without a system call per request, which
    /// a random draw for every id would cost.
    public static func generate() -> String {
        let sequence = nextSequence.add(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 32) { text in
            for digit in 0..<32 {
                let half = digit < 16 ? processPrefix : sequence
                let nibble = Int(truncatingIfNeeded: half >> UInt64(60 - 4 * (digit % 16))) & 0xf
                text[digit] = nibble < 10 ? UInt8(48 + nibble) : UInt8(87 + nibble)
            }
            return 32
        }
    }

    private static let processPrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    private static let nextSequence = Atomic<UInt64>(0)
}
