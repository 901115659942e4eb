import Foundation
import Observability
import Postgres

/// Writes JSON straight into bytes, in a fixed key order, without an encoder's reflection:
/// responses are built on every request, so this is on the hot path. The bytes go into a
/// buffer of its own rather than an `Array`, whose every append checks uniqueness and
/// capacity: each value reserves its worst case once and is written in place.
/// Noncopyable: it owns the buffer, and frees it once.
struct JSONWriter: ~Copyable {
    private var buffer: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Open objects and arrays as a stack of bits, innermost lowest: whether each already has
    /// a member. Responses nest a few levels; 64 is far beyond any shape written here.
    private var hasMember: UInt64 = 0
    private var depth = 0
    private var pendingValueAfterKey = false

    /// Room for a page of posts or comments (6 to 10 KB) from the start: growing copies
    /// everything written so far, and frees and allocates sizes the allocator handles slowly.
    init(capacity: Int = 16 * 1024) {
        self.capacity = max(capacity, 64)
        buffer = .allocate(capacity: self.capacity)
    }

    deinit { buffer.deallocate() }

    /// What has been written so far.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer, count: count)) }

    mutating func beginObject() {
        open(UInt8(ascii: "{"))
    }

    mutating func endObject() {
        close(UInt8(ascii: "}"))
    }

    mutating func beginArray() {
        open(UInt8(ascii: "["))
    }

    mutating func endArray() {
        close(UInt8(ascii: "]"))
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        precondition(depth < 64, "JSONWriter nests at most 64 levels")
        put(bracket)
        hasMember <<= 1
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        hasMember >>= 1
        depth -= 1
        put(bracket)
    }

    /// An array of values that write themselves.
    mutating func array<Items: Sequence>(_ items: Items) where Items.Element: JSONWritable {
        beginArray()
        for item in items { item.write(to: &self) }
        endArray()
    }

    /// Writes a key; the next value call writes its value. Inlined, so that each key's
    /// length is a constant where it is written and its bytes are copied without a call.
    @inline(__always)
    mutating func key(_ name: StaticString) {
        separate()
        name.withUTF8Buffer { name in
            let out = reserve(name.count + 3)
            out[0] = UInt8(ascii: "\"")
            for index in 0..<name.count { out[index + 1] = name[index] }
            out[name.count + 1] = UInt8(ascii: "\"")
            out[name.count + 2] = UInt8(ascii: ":")
            count += name.count + 3
        }
        pendingValueAfterKey = true
    }

    mutating func string(_ value: String) {
        separate()
        var text = value
        text.withUTF8 { utf8 in
            let out = reserve(JSONText.maximumQuotedLength(utf8.count))
            count += JSONText.writeQuoted(utf8, into: out)
        }
    }

    /// Text straight from a result's bytes, with no `String` between.
    mutating func string(_ value: PostgresText) {
        separate()
        value.withUTF8 { utf8 in
            let out = reserve(JSONText.maximumQuotedLength(utf8.count))
            count += JSONText.writeQuoted(utf8, into: out)
        }
    }

    /// A UUID in its lowercase canonical form, written without an intermediate `String`.
    mutating func uuid(_ value: PostgresUUID) {
        separate()
        let out = reserve(PostgresUUID.textLength + 2)
        out[0] = UInt8(ascii: "\"")
        value.writeLowercased(into: out + 1)
        out[PostgresUUID.textLength + 1] = UInt8(ascii: "\"")
        count += PostgresUUID.textLength + 2
    }

    mutating func optionalUUID(_ value: PostgresUUID?) {
        if let value { uuid(value) } else { null() }
    }

    /// A timestamp as the API shows it, `2026-11-30T10:53:13Z`.
    mutating func timestamp(_ value: PostgresTimestamp) {
        separate()
        let out = reserve(PostgresTimestamp.maximumTextLength + 2)
        out[0] = UInt8(ascii: "\"")
        let length = value.writeISO8601Seconds(into: out + 1)
        out[length + 1] = UInt8(ascii: "\"")
        count += length + 2
    }

    mutating func optionalTimestamp(_ value: PostgresTimestamp?) {
        guard let value else { return null() }
        timestamp(value)
    }

    mutating func int(_ value: Int) {
        separate()
        let written = JSONText.writeInteger(value, into: reserve(JSONText.maximumIntegerLength))
        count += written
    }

    mutating func bool(_ value: Bool) {
        separate()
        literal(value ? "true" : "false")
    }

    mutating func null() {
        separate()
        literal("null")
    }

    private mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { text in
            guard let base = text.baseAddress else { return }
            reserve(text.count).update(from: base, count: text.count)
            count += text.count
        }
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Splices an already-encoded JSON value.
    mutating func raw(_ json: [UInt8]) {
        separate()
        json.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress else { return }
            reserve(source.count).update(from: base, count: source.count)
            count += source.count
        }
    }

    /// Commas between members; a value right after its key needs none.
    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard depth > 0 else { return }
        if hasMember & 1 == 1 { put(UInt8(ascii: ",")) }
        hasMember |= 1
    }

    private mutating func put(_ byte: UInt8) {
        reserve(1).pointee = byte
        count += 1
    }

    /// Room for `length` more bytes, at the end of what is written; the caller writes there
    /// and then advances `count` by what it wrote.
    private mutating func reserve(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        if count + length > capacity { grow(toHold: count + length) }
        return buffer + count
    }

    private mutating func grow(toHold needed: Int) {
        let larger = max(capacity * 2, needed)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.moveInitialize(from: buffer, count: count)
        buffer.deallocate()
        buffer = moved
        capacity = larger
    }
}
