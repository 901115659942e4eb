/// Unpadded base64url (RFC 4648 §5), as JWTs and opaque tokens use it. Written out by hand:
/// cursors and tokens are encoded and checked on every request.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xff, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode($0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode($0) }
    }

    /// Written straight into the new string's storage.
    static func encode(_ input: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: (input.count * 4 + 2) / 3) { output in
            var index = 0, written = 0
            func put(_ sextet: UInt32) {
                output[written] = alphabet[Int(sextet & 63)]
                written += 1
            }
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                put(chunk >> 18); put(chunk >> 12); put(chunk >> 6); put(chunk)
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
                put(chunk >> 18); put(chunk >> 12)
                if rest == 2 { put(chunk >> 6) }
            }
            return written
        }
    }

    /// Strict: only the URL alphabet, no padding, no whitespace, canonical trailing bits.
    static func decode(_ text: Substring) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in input {
            let value = values[Int(byte)]
            guard value != 0xff else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // Spare bits must be zero, so one value has exactly one spelling.
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return output
    }
}
