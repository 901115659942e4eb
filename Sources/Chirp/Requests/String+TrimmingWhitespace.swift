extension String {
    /// Without leading and trailing Unicode white space, trimmed scalar by scalar: a combining
    /// mark after a space is text (as a `Character`, " \u{301}" would count as white space and
    /// vanish with it).
    var trimmingWhitespace: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
