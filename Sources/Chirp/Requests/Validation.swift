import HTTP

/// Input rules shared by the endpoints; each failure is a 422 naming the field.
enum Validation {
    /// `[A-Za-z0-9_]{3,30}`, then lowercased. The check comes first: lowercasing maps some
    /// non-ASCII letters to ASCII (the Kelvin sign U+212A becomes "k"), which would let a
    /// look-alike name through as someone else's.
    static func username(_ raw: String) throws -> String {
        guard (3...30).contains(raw.utf8.count),
              raw.utf8.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") })
        else {
            throw HTTPError.unprocessable(detail: "username must be 3 to 30 characters of a-z, 0-9 and _")
        }
        return raw.lowercased()
    }

    /// 8 to 256 characters, counted in code points as the API's schema counts them; the upper
    /// bound (at most 1 KiB of UTF-8) keeps hashing cost bounded.
    static let passwordLength = 8...256

    static func password(_ password: String, field: String = "password") throws -> String {
        let length = password.unicodeScalars.count
        guard length >= passwordLength.lowerBound else {
            throw HTTPError.unprocessable(detail: "\(field) must be at least \(passwordLength.lowerBound) characters")
        }
        guard length <= passwordLength.upperBound else {
            throw HTTPError.unprocessable(detail: "\(field) must be at most \(passwordLength.upperBound) characters")
        }
        try text(password, field: field)
        return password
    }

    /// Free text of bounded length: no NUL or other control characters except newline and tab.
    /// Length is counted in code points, as the schema's `char_length` checks count it: a flag
    /// emoji is one `Character` but two code points, so counting `Character`s would let
    /// through text that the database then refuses (a 500 instead of a 422).
    @discardableResult
    static func text(_ value: String, field: String, maxLength: Int? = nil, minLength: Int = 0) throws -> String {
        let length = value.unicodeScalars.count
        if length < minLength {
            throw HTTPError.unprocessable(detail: minLength == 1 ? "\(field) must not be empty" : "\(field) must be at least \(minLength) characters")
        }
        if let maxLength, length > maxLength {
            throw HTTPError.unprocessable(detail: "\(field) must be at most \(maxLength) characters")
        }
        let forbidden = value.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\n" && scalar != "\t") || scalar.value == 0x7f
        }
        if forbidden {
            throw HTTPError.unprocessable(detail: "\(field) contains control characters")
        }
        return value
    }

    /// Text that names or describes a person (a display name, a bio): `text`'s rules, and none of
    /// the invisible characters Unicode TR 39 warns are used to spoof one. Default-ignorable
    /// code points show nothing or change how the text around them shows: a right-to-left
    /// override turns "moc.elgoog" into "google.com", a zero-width space hides inside a name, a
    /// Hangul filler stands in for a blank one. They are refused, except where emoji and scripts
    /// need them: a joiner (ZWJ, ZWNJ) between two visible characters, a variation selector
    /// after one, and tag characters completing a flag.
    static func withoutInvisibleFormatting(_ value: String, field: String) throws {
        let scalars = Array(value.unicodeScalars)
        func shows(_ index: Int) -> Bool {
            guard scalars.indices.contains(index) else { return false }
            let scalar = scalars[index]
            return !scalar.properties.isWhitespace
                && (!scalar.properties.isDefaultIgnorableCodePoint || isVariationSelector(scalar))
        }
        for (index, scalar) in scalars.enumerated() where scalar.properties.isDefaultIgnorableCodePoint {
            let allowed: Bool
            switch scalar.value {
            case 0x200C, 0x200D: allowed = shows(index - 1) && shows(index + 1)
            case 0xFE00...0xFE0F, 0xE0100...0xE01EF: allowed = shows(index - 1)
            case 0xE0020...0xE007F: allowed = index > 0 && (scalars[index - 1] == "\u{1F3F4}" || (0xE0020...0xE007E).contains(scalars[index - 1].value))
            default: allowed = false
            }
            guard allowed else {
                throw HTTPError.unprocessable(
                    detail: "\(field) contains an invisible formatting character (U+\(String(scalar.value, radix: 16, uppercase: true)))")
            }
        }
    }

    private static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        (0xFE00...0xFE0F).contains(scalar.value) || (0xE0100...0xE01EF).contains(scalar.value)
    }

    /// `text`'s rules on the text as sent, then leading and trailing white space removed, and
    /// `minLength` checked on what is left. The length limit and the control-character rule
    /// apply to what the client sent, as the API's schema states them (a `maxLength` counts the
    /// JSON string), so a value the schema refuses is never accepted because trimming shortened
    /// it or removed a control character that is also white space (such as U+000B).
    static func trimmedText(_ value: String, field: String, maxLength: Int, minLength: Int = 0) throws -> String {
        try text(value, field: field, maxLength: maxLength)
        let trimmed = value.trimmingWhitespace
        if trimmed.unicodeScalars.count < minLength {
            throw HTTPError.unprocessable(detail: minLength == 1 ? "\(field) must not be empty" : "\(field) must be at least \(minLength) characters")
        }
        return trimmed
    }
}
