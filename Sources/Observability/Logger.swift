#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import EventLoops

/// Structured logging: one JSON object per line, written to standard error by default.
/// Callers pass fields, never request bodies, tokens or `Authorization` values.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String { String(describing: name) }

        /// As the line spells it.
        var name: StaticString {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// Receives each finished line, without its trailing newline.
    public typealias Sink = @Sendable (String) -> Void

    public var label: String
    public var minimumLevel: Level
    /// Nil means standard error, written straight from the line's bytes.
    private let sink: Sink?

    public init(label: String = "chirp", minimumLevel: Level = .info, sink: Sink? = nil) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
    }

    public func isEnabled(_ level: Level) -> Bool { level >= minimumLevel }

    /// Builds the line in one buffer sized for it up front and hands it on without copying it
    /// into an array first: a line is written for every request.
    public func log(_ level: Level, _ message: String, _ fields: [(String, LogValue)]) {
        guard isEnabled(level) else { return }
        // The fixed text and timestamp, then every string at its longest once quoted.
        var capacity = 80 + JSONText.maximumQuotedLength(label.utf8.count) + JSONText.maximumQuotedLength(message.utf8.count)
        for (key, value) in fields {
            capacity += 2 + JSONText.maximumQuotedLength(key.utf8.count) + value.maximumLength
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            guard let base = buffer.baseAddress else { return }
            var line = LogLine(start: base)
            line.append(#"{"time":""#)
            line.appendTimestamp()
            line.append(#"","level":""#)
            line.append(level.name)
            line.append(#"","logger":"#)
            line.appendQuoted(label)
            line.append(#","msg":"#)
            line.appendQuoted(message)
            for (key, value) in fields {
                line.append(",")
                line.appendQuoted(key)
                line.append(":")
                value.append(to: &line)
            }
            line.append("}")
            if let sink {
                sink(String(decoding: line.bytes, as: UTF8.self))
                return
            }
            line.append("\n")
            if let loop = EventLoop.current {
                // Batched on the loop; an error goes out at once (after what is queued), so
                // it is not lost if the process dies next.
                loop.writeBatched(UnsafeRawBufferPointer(line.bytes))
                if level >= .error { loop.flushBatchedOutput() }
            } else {
                Descriptor.writeAll(UnsafeRawBufferPointer(line.bytes), to: 2)
            }
        }
    }

    public func debug(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.debug, message, Array(fields))
    }

    public func info(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.info, message, Array(fields))
    }

    public func warning(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.warning, message, Array(fields))
    }

    public func error(_ message: String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.error, message, Array(fields))
    }
}

/// A log field's value.
public enum LogValue: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// The most bytes `append(to:)` writes.
    var maximumLength: Int {
        switch self {
        case .string(let text): JSONText.maximumQuotedLength(text.utf8.count)
        case .int: JSONText.maximumIntegerLength
        case .double: 32
        case .bool: 5
        }
    }

    func append(to line: inout LogLine) {
        switch self {
        case .string(let text): line.appendQuoted(text)
        case .int(let number): line.appendInteger(number)
        case .double(let number): line.appendText(number.isFinite ? String(number) : "null")
        case .bool(let flag): line.append(flag ? "true" : "false")
        }
    }
}

/// A log line being written into memory that `Logger.log` sized for it.
struct LogLine {
    private let start: UnsafeMutablePointer<UInt8>
    private var count = 0

    init(start: UnsafeMutablePointer<UInt8>) {
        self.start = start
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    mutating func append(_ text: StaticString) {
        (start + count).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        count += text.utf8CodeUnitCount
    }

    mutating func appendQuoted(_ value: String) {
        var value = value
        value.withUTF8 { count += JSONText.writeQuoted($0, into: start + count) }
    }

    /// Text known to need no escaping, such as a number `String` printed.
    mutating func appendText(_ value: String) {
        var value = value
        value.withUTF8 { text in
            guard let base = text.baseAddress else { return }
            (start + count).update(from: base, count: text.count)
            count += text.count
        }
    }

    mutating func appendInteger(_ value: Int) {
        let written = JSONText.writeInteger(value, into: start + count)
        count += written
    }

    /// `width` digits of `value`, zero-padded.
    private mutating func appendDigits(_ value: Int, width: Int) {
        var rest = value
        for position in stride(from: width - 1, through: 0, by: -1) {
            start[count + position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        count += width
    }

    /// UTC with milliseconds, for example `2026-11-30T10:53:13.042Z`.
    mutating func appendTimestamp() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        appendDigits(Int(parts.tm_year) + 1900, width: 4); append("-")
        appendDigits(Int(parts.tm_mon) + 1, width: 2); append("-")
        appendDigits(Int(parts.tm_mday), width: 2); append("T")
        appendDigits(Int(parts.tm_hour), width: 2); append(":")
        appendDigits(Int(parts.tm_min), width: 2); append(":")
        appendDigits(Int(parts.tm_sec), width: 2); append(".")
        appendDigits(Int(now.tv_nsec) / 1_000_000, width: 3); append("Z")
    }
}
