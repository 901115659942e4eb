import HTTP

/// The `q` of a search: 1 to 100 characters as sent, no control characters, and not blank;
/// anything else is a 400 `invalid_parameter`. The limits apply to the value as sent, then it
/// is trimmed.
package struct SearchTerm {
    static let maxLength = 100

    let text: String

    package init(_ request: HTTPRequest) throws {
        guard let raw = request.query["q"] else { throw Self.invalid("q is required") }
        // Counted as PostgreSQL's char_length counts: code points.
        guard raw.unicodeScalars.count <= Self.maxLength else {
            throw Self.invalid("q must be at most \(Self.maxLength) characters")
        }
        // A NUL would cut the parameter short on its way to the server.
        guard !raw.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw Self.invalid("q contains control characters")
        }
        let text = raw.trimmingWhitespace
        guard !text.isEmpty else { throw Self.invalid("q must not be blank") }
        self.text = text
    }

    /// The term with LIKE's escape character and wildcards escaped (`\` is LIKE's default
    /// escape), so `_` and `%` match themselves.
    var likeEscaped: String { Self.escapingLike(text) }

    /// Usernames are stored lowercased, so their prefix pattern is too.
    var usernamePrefixPattern: String { Self.escapingLike(text.lowercased()) }

    private static func escapingLike(_ text: String) -> String {
        // By code point, as the server reads the pattern: a backslash inside a larger
        // grapheme cluster is still a backslash to LIKE.
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "%" || scalar == "_" { escaped.append("\\") }
            escaped.append(scalar)
        }
        return String(escaped)
    }

    private static func invalid(_ detail: String) -> HTTPError {
        .badRequest(code: "invalid_parameter", detail: detail)
    }
}
