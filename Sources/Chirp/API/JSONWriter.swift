import Foundation
import HTTP
import Postgres

/// Writes JSON straight into bytes, in a fixed key order, without an encoder's reflection:
/// responses are built on every request, so this is on the hot path.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Open objects and arrays as a stack of bits, innermost lowest: whether each already has
    /// a member. Responses nest a few levels; 64 is far beyond any shape written here.
    private var hasMember: UInt64 = 0
    private var depth = 0

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

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
        bytes.append(bracket)
        hasMember <<= 1
        depth += 1
    }

    private mutating func close(_ bracket: UInt8) {
        hasMember >>= 1
        depth -= 1
        bytes.append(bracket)
    }

    /// An array of values that write themselves.
    mutating func array(_ items: [some JSONWritable]) {
        beginArray()
        for item in items { item.write(to: &self) }
        endArray()
    }

    /// Writes a key; the next value call writes its value.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        pendingValueAfterKey = true
    }

    mutating func string(_ value: String) {
        separate()
        JSONText.appendString(value, to: &bytes)
    }

    /// A UUID in its lowercase canonical form, written without an intermediate `String`.
    mutating func uuid(_ value: UUID) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.appendLowercased(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func optionalUUID(_ value: UUID?) {
        if let value { uuid(value) } else { null() }
    }

    /// A timestamp as the API shows it, `2026-11-30T10:53:13Z`.
    mutating func timestamp(_ value: PostgresTimestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        value.appendISO8601Seconds(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: Int) {
        separate()
        guard value >= 0 else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // Digits into a small stack buffer, most significant first.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(truncatingIfNeeded: 48 + rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
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
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Splices an already-encoded JSON value.
    mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    private var pendingValueAfterKey = false

    /// Commas between members; a value right after its key needs none.
    private mutating func separate() {
        if pendingValueAfterKey {
            pendingValueAfterKey = false
            return
        }
        guard depth > 0 else { return }
        if hasMember & 1 == 1 { bytes.append(UInt8(ascii: ",")) }
        hasMember |= 1
    }
}

/// A value that writes itself as JSON.
protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}
