import Chirp

/// `chirp seed` flags: sizes start from the demo set (or `--benchmark`), then each flag
/// overrides one.
enum SeedOptions {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws -> SeedSizes {
        var sizes = arguments.contains("--benchmark") ? SeedSizes.benchmark : SeedSizes.demo
        var remaining = arguments.filter { $0 != "--benchmark" }[...]
        while let flag = remaining.popFirst() {
            guard let text = remaining.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            guard let value = Int(text), value >= 0, value <= 100_000_000 else {
                throw Invalid(description: "\(flag) must be a whole number from 0 to 100000000 (got \"\(text)\")")
            }
            switch flag {
            case "--seed": sizes.seed = value
            case "--users": sizes.users = value
            case "--posts": sizes.posts = value
            case "--likes": sizes.likes = value
            case "--follows": sizes.follows = value
            case "--comments": sizes.comments = value
            case "--words": sizes.words = value
            case "--most-follows": sizes.mostFollows = value
            default: throw Invalid(description: "unknown option \(flag)")
            }
        }
        guard sizes.users >= 2 else { throw Invalid(description: "--users must be at least 2") }
        guard (1...SeedGenerator.largestVocabulary).contains(sizes.words) else {
            throw Invalid(description: "--words must be from 1 to \(SeedGenerator.largestVocabulary)")
        }
        guard sizes.posts >= 1 || (sizes.likes == 0 && sizes.comments == 0) else {
            throw Invalid(description: "likes and comments need posts")
        }
        return sizes
    }
}
