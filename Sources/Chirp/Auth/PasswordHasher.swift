import CSodium
import Foundation
import Synchronization

/// Argon2id password hashing through libsodium, at or above OWASP's minimum (19 MiB, 2 passes).
/// A hash takes tens of milliseconds of a core, so at most `maxConcurrent` run at once and a
/// caller beyond that is refused at once (`Busy`) rather than queued behind them.
public final class PasswordHasher: Sendable {
    public struct Parameters: Sendable, Equatable {
        public var passes: Int
        public var memoryBytes: Int

        public init(passes: Int, memoryBytes: Int) {
            self.passes = passes
            self.memoryBytes = memoryBytes
        }

        /// OWASP's Argon2id minimum.
        public static let owaspMinimum = Parameters(passes: 2, memoryBytes: 19 * 1024 * 1024)
    }

    /// Every hashing slot is taken.
    public struct Busy: Error {}

    public let parameters: Parameters
    private let maxConcurrent: Int
    private let running = Atomic<Int>(0)
    private let performed = Atomic<Int>(0)

    public init(parameters: Parameters = .owaspMinimum, maxConcurrent: Int = ProcessInfo.processInfo.activeProcessorCount) {
        _ = Sodium.ready
        self.parameters = parameters
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// An encoded hash (`$argon2id$v=19$m=…,t=…,p=1$salt$hash`) with a fresh random salt.
    public func hash(_ password: String) throws -> String {
        try withSlot {
            var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
            // Every byte of the password counts: a length taken with strlen would stop at an
            // embedded NUL, so "secret\0anything" would match "secret".
            let status = password.withCString { pointer in
                crypto_pwhash_str_alg(
                    &output, pointer, UInt64(password.utf8.count),
                    UInt64(parameters.passes), parameters.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
            }
            guard status == 0 else { throw SodiumError(operation: "crypto_pwhash_str_alg") }
            return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Whether `password`, all of its bytes, matches `encoded` (libsodium compares in constant time).
    public func verify(_ password: String, against encoded: String) throws -> Bool {
        try withSlot {
            encoded.withCString { hash in
                password.withCString { pointer in
                    crypto_pwhash_str_verify(hash, pointer, UInt64(password.utf8.count)) == 0
                }
            }
        }
    }

    /// Whether a stored hash was made with other parameters and should be replaced.
    public func needsRehash(_ encoded: String) -> Bool {
        encoded.withCString {
            crypto_pwhash_str_needs_rehash($0, UInt64(parameters.passes), parameters.memoryBytes) != 0
        }
    }

    /// Hashes and verifications run so far (refused ones not counted), for `/metrics`.
    public var operations: Int { performed.load(ordering: .relaxed) }

    private func withSlot<T>(_ body: () throws -> T) throws -> T {
        let (previous, _) = running.add(1, ordering: .acquiring)
        defer { running.subtract(1, ordering: .releasing) }
        guard previous < maxConcurrent else { throw Busy() }
        performed.add(1, ordering: .relaxed)
        return try body()
    }
}
