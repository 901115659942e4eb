/// An IP address as text, as the shim's helpers write it.
enum AddressText {
    /// Runs `write` on a zeroed buffer on the stack, with room for any IP address as text (IPv6
    /// takes at most 45 characters) and its NUL; the text when `write` returns 0, otherwise
    /// `unknown`.
    static func read(_ write: (UnsafeMutablePointer<CChar>, Int) -> Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            guard let start = buffer.baseAddress, write(start, buffer.count - 1) == 0 else { return "unknown" }
            return String(cString: start)
        }
    }
}
