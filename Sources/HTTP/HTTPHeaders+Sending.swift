extension HTTPHeaders {
    /// Whether a field a handler set may go out on the wire. libmicrohttpd sets the framing
    /// headers itself, and anything that could split the response (CR, LF, NUL) is dropped.
    static func maySend(name: String, value: String) -> Bool {
        if sameName(name, "Content-Length") || sameName(name, "Transfer-Encoding") || sameName(name, "Connection") {
            return false
        }
        let forbidden: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        return !name.isEmpty && !name.utf8.contains(where: forbidden) && !value.utf8.contains(where: forbidden)
    }
}
