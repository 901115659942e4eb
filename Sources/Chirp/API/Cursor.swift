import Foundation
import HTTP
import Postgres

/// Opaque, tamper-evident list cursors: a small binary position, MAC'd (keyed BLAKE2b) with a
/// key derived from the service secret and bound to the list it came from (its scope), then
/// base64url.
/// A forged, garbled or foreign cursor is a 400 `invalid_cursor`, never a wrong page.
struct CursorCodec: Sendable {
    private let key: [UInt8]
    private static let macLength = 16

    init(secret: [UInt8]) {
        // v2: the MAC became BLAKE2b; a cursor made before no longer verifies.
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

/// A place in a list ordered by `(timestamp, id)`.
package struct KeysetPosition: Equatable, Sendable {
    var timestamp: PostgresTimestamp
    var id: PostgresUUID

    /// Before every row in a descending list; after every row in an ascending one.
    package static let top = KeysetPosition(timestamp: PostgresTimestamp(microsecondsSinceEpoch: 253_402_300_799_999_999),  // 9999-12-31
                                     id: .max)
    package static let bottom = KeysetPosition(timestamp: PostgresTimestamp(microsecondsSinceEpoch: -62_135_596_800_000_000),  // 0001-01-01
                                        id: .zero)

    func append(to bytes: inout [UInt8]) {
        withUnsafeBytes(of: timestamp.microsecondsSinceEpoch.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: id.high.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: id.low.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package init(timestamp: PostgresTimestamp, id: PostgresUUID) {
        self.timestamp = timestamp
        self.id = id
    }

    /// Reads the 24 bytes `append` wrote.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 24 else { return nil }
        let start = bytes.startIndex
        var micros: Int64 = 0
        for byte in bytes[start..<(start + 8)] { micros = micros << 8 | Int64(byte) }
        var high: UInt64 = 0, low: UInt64 = 0
        for byte in bytes[(start + 8)..<(start + 16)] { high = high << 8 | UInt64(byte) }
        for byte in bytes[(start + 16)..<(start + 24)] { low = low << 8 | UInt64(byte) }
        guard (Self.bottom.timestamp.microsecondsSinceEpoch...Self.top.timestamp.microsecondsSinceEpoch).contains(micros) else {
            return nil
        }
        timestamp = PostgresTimestamp(microsecondsSinceEpoch: micros)
        id = PostgresUUID(high: high, low: low)
    }
}

/// A keyset cursor: where the next page starts, and optionally where it must stop (the old
/// head a refresh is filling the gap down to).
struct ListCursor: Equatable, Sendable {
    var position: KeysetPosition
    var floor: KeysetPosition?

    private static let kind: UInt8 = 1

    func encode(with codec: CursorCodec, scope: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(49)  // a kind byte and up to two positions
        bytes.append(Self.kind)
        position.append(to: &bytes)
        if let floor { floor.append(to: &bytes) }
        return codec.encode(bytes, scope: scope)
    }

    static func decode(_ text: String, with codec: CursorCodec, scope: String) throws -> ListCursor {
        let bytes = try codec.decode(text, scope: scope)
        guard bytes.first == kind, bytes.count == 25 || bytes.count == 49,
              let position = KeysetPosition(bytes[1..<25])
        else { throw CursorCodec.invalid }
        let floor = bytes.count == 49 ? KeysetPosition(bytes[25..<49]) : nil
        if bytes.count == 49 && floor == nil { throw CursorCodec.invalid }
        return ListCursor(position: position, floor: floor)
    }
}
