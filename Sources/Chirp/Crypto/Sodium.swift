import CSodium

/// libsodium must be initialised once before use; `sodium_init` is itself thread-safe.
enum Sodium {
    static let ready: Bool = sodium_init() >= 0
}

struct SodiumError: Error, CustomStringConvertible {
    var operation: String
    var description: String { "\(operation) failed" }
}
