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
