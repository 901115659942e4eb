/// Header values may carry optional whitespace (RFC 9110 §5.5): spaces and tabs only.
extension Substring {
    /// Trims spaces and tabs byte by byte, which is all a header needs and much cheaper than
    /// Foundation's character-set trimming on the per-request path.
    public func trimmingASCIISpaces() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        // Only ASCII bytes were dropped, so the slice starts and ends on whole characters.
        return String(decoding: utf8[first...last], as: UTF8.self)
    }
}

extension String {
    public func trimmingASCIISpaces() -> String {
        self[...].trimmingASCIISpaces()
    }
}
