import Foundation

/// A YAML value, as far as `openapi.yaml` uses YAML.
indirect enum YAMLValue: Equatable, Sendable {
    case mapping([(key: String, value: YAMLValue)])
    case sequence([YAMLValue])
    case string(String)
    case integer(Int)
    case bool(Bool)
    case null

    static func == (a: YAMLValue, b: YAMLValue) -> Bool {
        switch (a, b) {
        case (.mapping(let x), .mapping(let y)):
            x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case (.sequence(let x), .sequence(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.null, .null): true
        default: false
        }
    }

    subscript(key: String) -> YAMLValue? {
        guard case .mapping(let entries) = self else { return nil }
        return entries.first { $0.key == key }?.value
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var integer: Int? { if case .integer(let i) = self { i } else { nil } }
    var sequence: [YAMLValue] { if case .sequence(let s) = self { s } else { [] } }
    var keys: [String] { if case .mapping(let m) = self { m.map(\.key) } else { [] } }
}

/// A reader for the block-style YAML subset `openapi.yaml` is written in: two-space
/// indentation, mappings, `- ` sequences, `|` block scalars, plain and quoted scalars, and
/// one-line flow sequences (`[a, 'b']`) and empty mappings (`{}`). No anchors, no comments
/// after values. Enough to check real responses against the document's schemas.
struct YAMLLite {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private struct Line {
        var indent: Int
        var text: Substring
        var number: Int
    }

    private var lines: [Line] = []
    private var position = 0

    static func parse(_ text: String) throws -> YAMLValue {
        var reader = YAMLLite()
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = raw.prefix(while: { $0 == " " }).count
            let content = raw.dropFirst(indent)
            if content.isEmpty || content.hasPrefix("#") { continue }
            reader.lines.append(Line(indent: indent, text: content, number: number + 1))
        }
        guard let first = reader.lines.first else { return .null }
        return try reader.block(at: first.indent)
    }

    private mutating func block(at indent: Int) throws -> YAMLValue {
        guard position < lines.count else { return .null }
        return lines[position].text.hasPrefix("- ") || lines[position].text == "-"
            ? try sequence(at: indent) : try mapping(at: indent)
    }

    private mutating func mapping(at indent: Int) throws -> YAMLValue {
        var entries: [(key: String, value: YAMLValue)] = []
        while position < lines.count, lines[position].indent == indent, !lines[position].text.hasPrefix("- ") {
            let line = lines[position]
            let (key, rest) = try Self.splitKey(line)
            position += 1
            entries.append((key, try value(after: rest, parentIndent: indent, line: line)))
        }
        if position < lines.count, lines[position].indent > indent {
            throw Malformed(description: "line \(lines[position].number): unexpected indentation")
        }
        return .mapping(entries)
    }

    private mutating func sequence(at indent: Int) throws -> YAMLValue {
        var items: [YAMLValue] = []
        while position < lines.count, lines[position].indent == indent, lines[position].text.hasPrefix("-") {
            let line = lines[position]
            let rest = line.text.dropFirst(1).drop(while: { $0 == " " })
            if rest.isEmpty {
                position += 1
                items.append(try block(at: lines[position].indent))
            } else if Self.keyEnd(in: rest) != nil && !rest.hasPrefix("{") && !rest.hasPrefix("[") && !rest.hasPrefix("'") && !rest.hasPrefix("\"") {
                // `- key: value` and more keys below it, aligned with `key`.
                let itemIndent = indent + (line.text.count - rest.count)
                lines[position] = Line(indent: itemIndent, text: rest, number: line.number)
                items.append(try mapping(at: itemIndent))
            } else {
                position += 1
                items.append(try Self.scalar(rest, line: line))
            }
        }
        return .sequence(items)
    }

    private mutating func value(after rest: Substring, parentIndent: Int, line: Line) throws -> YAMLValue {
        if rest.isEmpty {
            guard position < lines.count, lines[position].indent > parentIndent
                    || (lines[position].indent == parentIndent && lines[position].text.hasPrefix("- "))
            else { return .null }
            return try block(at: lines[position].indent)
        }
        if rest == "|" || rest == "|-" || rest == ">" {
            var text: [Substring] = []
            let start = position
            while position < lines.count, lines[position].indent > parentIndent { position += 1 }
            let body = lines[start..<position]
            let base = body.map(\.indent).min() ?? 0
            for part in body { text.append(Substring(String(repeating: " ", count: part.indent - base)) + part.text) }
            return .string(text.joined(separator: rest == ">" ? " " : "\n") + (rest == "|" ? "\n" : ""))
        }
        return try Self.scalar(rest, line: line)
    }

    /// Where `key:` ends in a line, outside quotes.
    private static func keyEnd(in text: Substring) -> Substring.Index? {
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == ":" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static func splitKey(_ line: Line) throws -> (String, Substring) {
        guard let end = keyEnd(in: line.text) else {
            throw Malformed(description: "line \(line.number): expected `key:` in \(line.text)")
        }
        let rawKey = line.text[..<end]
        guard case .string(let key) = try scalar(rawKey, line: line, keepNumbers: false) else {
            throw Malformed(description: "line \(line.number): key is not text")
        }
        return (key, line.text[line.text.index(after: end)...].drop(while: { $0 == " " }))
    }

    private static func scalar(_ text: Substring, line: Line, keepNumbers: Bool = true) throws -> YAMLValue {
        if text == "{}" { return .mapping([]) }
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { throw Malformed(description: "line \(line.number): unclosed [") }
            let inner = text.dropFirst().dropLast()
            var items: [YAMLValue] = []
            var current = ""
            var quote: Character?
            for character in inner {
                if let open = quote {
                    current.append(character)
                    if character == open { quote = nil }
                } else if character == "'" || character == "\"" {
                    quote = character
                    current.append(character)
                } else if character == "," {
                    items.append(try scalar(Substring(current.trimmingCharacters(in: .whitespaces)), line: line))
                    current = ""
                } else {
                    current.append(character)
                }
            }
            let last = current.trimmingCharacters(in: .whitespaces)
            if !last.isEmpty { items.append(try scalar(Substring(last), line: line)) }
            return .sequence(items)
        }
        if text.hasPrefix("'") {
            guard text.count >= 2, text.hasSuffix("'") else { throw Malformed(description: "line \(line.number): unclosed '") }
            return .string(String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'"))
        }
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\"") else { throw Malformed(description: "line \(line.number): unclosed \"") }
            let data = Data(text.utf8)
            guard let decoded = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? String else {
                throw Malformed(description: "line \(line.number): bad double-quoted string")
            }
            return .string(decoded)
        }
        guard keepNumbers else { return .string(String(text)) }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null", "~": return .null
        default:
            if let integer = Int(text) { return .integer(integer) }
            return .string(String(text))
        }
    }
}

/// The document's response schemas, and a checker for the JSON Schema keywords it uses.
struct OpenAPISchemas {
    let document: YAMLValue

    init(yaml: String) throws {
        document = try YAMLLite.parse(yaml)
    }

    /// Follows `$ref`s to `#/components/…`.
    func resolve(_ value: YAMLValue) -> YAMLValue {
        var current = value
        var hops = 0
        while let reference = current["$ref"]?.string, reference.hasPrefix("#/"), hops < 16 {
            var target: YAMLValue? = document
            for part in reference.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
            guard let target else { return current }
            current = target
            hops += 1
        }
        return current
    }

    /// The documented response for an operation and status, with its `$ref` resolved.
    func response(_ method: String, _ path: String, status: Int) -> YAMLValue? {
        guard let operation = document["paths"]?[path]?[method.lowercased()],
              let response = operation["responses"]?[String(status)]
        else { return nil }
        return resolve(response)
    }

    /// What is wrong with `value` under `schema`; empty when it conforms.
    func violations(of value: Any, against schema: YAMLValue, at path: String = "$") -> [String] {
        let schema = resolve(schema)
        var problems: [String] = []
        if let parts = schema["allOf"]?.sequence, !parts.isEmpty {
            for part in parts { problems += violations(of: value, against: part, at: path) }
        }
        if let options = schema["oneOf"]?.sequence, !options.isEmpty {
            let matching = options.filter { violations(of: value, against: $0, at: path).isEmpty }.count
            if matching != 1 { problems.append("\(path): matches \(matching) of oneOf's \(options.count) schemas") }
        }
        if let constant = schema["const"], !Self.equal(value, constant) {
            problems.append("\(path): is not \(constant)")
        }
        if let choices = schema["enum"]?.sequence, !choices.isEmpty, !choices.contains(where: { Self.equal(value, $0) }) {
            problems.append("\(path): is not one of \(choices)")
        }
        let types: [String] = schema["type"].map { type in type.string.map { [$0] } ?? type.sequence.compactMap(\.string) } ?? []
        if !types.isEmpty, !types.contains(where: { Self.isOfType(value, $0) }) {
            return problems + ["\(path): is not of type \(types.joined(separator: " or "))"]
        }
        switch value {
        case let object as [String: Any]:
            let properties = schema["properties"]
            for name in schema["required"]?.sequence.compactMap(\.string) ?? [] where object[name] == nil {
                problems.append("\(path): lacks required \(name)")
            }
            if schema["additionalProperties"] == .bool(false) {
                for name in object.keys.sorted() where properties?[name] == nil {
                    problems.append("\(path): has undocumented property \(name)")
                }
            }
            for (name, property) in object {
                if let propertySchema = properties?[name] {
                    problems += violations(of: property, against: propertySchema, at: "\(path).\(name)")
                }
            }
        case let array as [Any]:
            if let maximum = schema["maxItems"]?.integer, array.count > maximum {
                problems.append("\(path): has \(array.count) items, more than \(maximum)")
            }
            if let items = schema["items"] {
                for (index, item) in array.enumerated() {
                    problems += violations(of: item, against: items, at: "\(path)[\(index)]")
                }
            }
        case let string as String:
            let length = string.unicodeScalars.count
            if let minimum = schema["minLength"]?.integer, length < minimum { problems.append("\(path): shorter than \(minimum)") }
            if let maximum = schema["maxLength"]?.integer, length > maximum { problems.append("\(path): longer than \(maximum)") }
            if let pattern = schema["pattern"]?.string {
                if let regex = try? NSRegularExpression(pattern: Self.icuPattern(pattern)) {
                    let range = NSRange(string.startIndex..., in: string)
                    if regex.firstMatch(in: string, range: range) == nil { problems.append("\(path): \(string.debugDescription) does not match \(pattern)") }
                } else {
                    problems.append("\(path): the document's pattern \(pattern) does not compile")
                }
            }
        default:
            if case .number(let number)? = Self.kind(of: value) {
                if let minimum = schema["minimum"]?.integer, number < Double(minimum) { problems.append("\(path): below \(minimum)") }
                if let maximum = schema["maximum"]?.integer, number > Double(maximum) { problems.append("\(path): above \(maximum)") }
            }
        }
        return problems
    }

    /// ECMA-262's `\xHH` and `\uHHHH` escapes mean the same to ICU, so patterns are used as is.
    private static func icuPattern(_ pattern: String) -> String { pattern }

    enum Kind: Equatable {
        case object, array, string, null, bool
        case number(Double)
    }

    /// What JSONSerialization produced, telling booleans from numbers as `TestClient`'s `JSON` does.
    static func kind(of value: Any) -> Kind? {
        if value is [String: Any] { return .object }
        if value is [Any] { return .array }
        if value is String { return .string }
        if value is NSNull { return .null }
        if type(of: value) == Bool.self || "\(type(of: value))".contains("Bool") { return .bool }
        if let number = value as? NSNumber { return .number(number.doubleValue) }
        if let number = value as? Int { return .number(Double(number)) }
        if let number = value as? Double { return .number(number) }
        return nil
    }

    private static func isOfType(_ value: Any, _ type: String) -> Bool {
        switch (type, kind(of: value)) {
        case ("object", .object?), ("array", .array?), ("string", .string?), ("null", .null?), ("boolean", .bool?): true
        case ("integer", .number(let number)?): number.rounded() == number
        case ("number", .number?): true
        default: false
        }
    }

    private static func equal(_ value: Any, _ expected: YAMLValue) -> Bool {
        switch (expected, kind(of: value)) {
        case (.string(let text), .string?): (value as? String) == text
        case (.integer(let integer), .number(let number)?): number == Double(integer)
        case (.bool(let flag), .bool?): (value as? Bool) == flag
        case (.null, .null?): true
        default: false
        }
    }
}
