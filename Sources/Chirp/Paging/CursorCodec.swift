import HTTP

/// Opaque, tamper-evident list cursors: a small binary position, MAC'd (keyed BLAKE2b) with a
/// key derived from the service secret and bound to the list it came from (its scope), then
/// base64url.
/// A forged, garbled or foreign cursor is a 400 `invalid_cursor`, never a wrong page.
struct CursorCodec: Sendable {
    private let key: [UInt8]
    private static let macLength = 16

    init(secret: [UInt8]) {
        // The purpose names the MAC's version: a new MAC gets a new key, so a cursor made
        // under the old one fails verification instead of being read with the wrong MAC.
        key = HMAC.subkey(of: secret, for: "chirp list cursors v2")
    }

    /// Tagged and encoded in buffers on the stack: every page of every list makes a cursor.
    func encode(_ payload: [UInt8], scope: String) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: payload.count + Self.macLength) { tagged in
            let end = tagged.initialize(fromContentsOf: payload)
            mac(payload, scope: scope, into: UnsafeMutableBufferPointer(rebasing: tagged[end...]))
            return Base64URL.encode(UnsafeBufferPointer(tagged))
        }
    }

    func decode(_ text: String, scope: String) throws -> [UInt8] {
        guard text.utf8.count <= 256, let bytes = Base64URL.decode(Substring(text)), bytes.count > Self.macLength else {
            throw Self.invalid
        }
        let payload = Array(bytes.dropLast(Self.macLength))
        var expected = [UInt8](repeating: 0, count: Self.macLength)
        expected.withUnsafeMutableBufferPointer { mac(payload, scope: scope, into: $0) }
        guard HMAC.equal(Array(bytes.suffix(Self.macLength)), expected) else { throw Self.invalid }
        return payload
    }

    /// Tags the scope, a zero byte and the payload, so a cursor only opens the list it came from.
    private func mac(_ payload: [UInt8], scope: String, into tag: UnsafeMutableBufferPointer<UInt8>) {
        var scope = scope
        scope.withUTF8 { scope in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: scope.count + 1 + payload.count) { message in
                var end = message.initialize(fromContentsOf: scope)
                message.initializeElement(at: end, to: 0)
                end += 1
                end = UnsafeMutableBufferPointer(rebasing: message[end...]).initialize(fromContentsOf: payload) + end
                BLAKE2b.mac(key: key, message: UnsafeBufferPointer(rebasing: message[..<end]), into: tag)
            }
        }
    }

    static let invalid = HTTPError.badRequest(code: "invalid_cursor", detail: "cursor is malformed or expired")
}
