/// How much data `chirp seed` makes. The same seed and sizes give the same data every time.
public struct SeedSizes: Sendable, Equatable {
    public var seed: Int
    public var users: Int
    public var posts: Int
    public var likes: Int
    public var follows: Int
    public var comments: Int
    /// How many distinct words post, comment and bio text draws from (by a Zipf law, so a few
    /// are everywhere and most are rare).
    public var words: Int
    /// How many accounts the heaviest follower follows (fewer when there are not that many other
    /// users).
    public var mostFollows: Int

    public init(seed: Int = 1, users: Int, posts: Int, likes: Int, follows: Int, comments: Int,
                words: Int = 10_000, mostFollows: Int = 5_000) {
        self.seed = seed
        self.users = users
        self.posts = posts
        self.likes = likes
        self.follows = follows
        self.comments = comments
        self.words = words
        self.mostFollows = mostFollows
    }

    /// Enough to click through: the default of `chirp seed`.
    public static let demo = SeedSizes(users: 50, posts: 1_000, likes: 6_000, follows: 400, comments: 1_500)

    /// The benchmark's data set.
    public static let benchmark = SeedSizes(users: 10_000, posts: 1_000_000, likes: 5_000_000, follows: 300_000, comments: 500_000)
}
