/// A statement's SQL as the key of a connection's prepared-statement cache. Every statement
/// of every request is looked up, and hashing all of its text (hundreds of bytes) cost more
/// than building it. The hash takes the length and three words of the text instead; equal
/// keys still compare the whole text, so statements that share those words only share a
/// bucket.
struct StatementKey: Hashable {
    let sql: String

    init(_ sql: String) {
        self.sql = sql
    }

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool {
        lhs.sql == rhs.sql
    }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { text in
            hasher.combine(text.count)
            guard text.count >= 8, let base = text.baseAddress else {
                hasher.combine(bytes: UnsafeRawBufferPointer(text))
                return
            }
            let raw = UnsafeRawPointer(base)
            hasher.combine(raw.loadUnaligned(as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: text.count / 2 - 4, as: UInt64.self))
            hasher.combine(raw.loadUnaligned(fromByteOffset: text.count - 8, as: UInt64.self))
        }
    }
}
