import HTTP

/// Input rules shared by the endpoints; each failure is a 422 naming the field.
enum Validation {
    /// Lowercased, then `[a-z0-9_]{3,30}`.
    static func username(_ raw: String) throws -> String {
        let username = raw.lowercased()
        guard (3...30).contains(username.utf8.count),
              username.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") })
        else {
            throw HTTPError.unprocessable(detail: "username must be 3 to 30 characters of a-z, 0-9 and _")
        }
        return username
    }

    /// 8 to 256 characters; the upper bound keeps hashing cost bounded.
    static func password(_ password: String) throws -> String {
        guard password.count >= 8 else {
            throw HTTPError.unprocessable(detail: "password must be at least 8 characters")
        }
        guard password.utf8.count <= 256 else {
            throw HTTPError.unprocessable(detail: "password must be at most 256 bytes")
        }
        try text(password, field: "password")
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

    /// Text with leading and trailing white space removed, then `text`'s rules.
    static func trimmedText(_ value: String, field: String, maxLength: Int, minLength: Int = 0) throws -> String {
        try text(value.trimmingWhitespace, field: field, maxLength: maxLength, minLength: minLength)
    }
}

extension String {
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
