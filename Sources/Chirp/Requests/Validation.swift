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
