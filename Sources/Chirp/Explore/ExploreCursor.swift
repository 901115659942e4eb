/// A place in an explore snapshot: which ranking, and the last rank seen.
struct ExploreCursor: Equatable, Sendable {
    var snapshot: Int64
    var rank: Int32

    static let scope = "explore"
    private static let kind: UInt8 = 2

    func encode(with codec: CursorCodec) -> String {
        var bytes: [UInt8] = [Self.kind]
        withUnsafeBytes(of: snapshot.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: rank.bigEndian) { bytes.append(contentsOf: $0) }
        return codec.encode(bytes, scope: Self.scope)
    }

    static func decode(_ text: String, with codec: CursorCodec) throws -> ExploreCursor {
        let bytes = try codec.decode(text, scope: scope)
        guard bytes.count == 13, bytes[0] == kind else { throw CursorCodec.invalid }
        let snapshot = bytes[1..<9].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let rank = bytes[9..<13].reduce(Int32(0)) { $0 << 8 | Int32($1) }
        guard snapshot > 0, rank > 0 else { throw CursorCodec.invalid }
        return ExploreCursor(snapshot: snapshot, rank: rank)
    }
}
