/// A budget of attempts per fixed window, e.g. 10 logins a minute for one username.
public struct RateLimit: Sendable, Equatable {
    public var name: String
    public var limit: Int
    public var windowSeconds: Int

    public init(name: String, limit: Int, windowSeconds: Int) {
        self.name = name
        self.limit = limit
        self.windowSeconds = windowSeconds
    }
}

/// The budgets of the endpoints that cost a password hash or a token.
public struct RateLimits: Sendable, Equatable {
    public var signupPerAddress = RateLimit(name: "signup-ip", limit: 20, windowSeconds: 3_600)
    public var loginPerAddress = RateLimit(name: "login-ip", limit: 60, windowSeconds: 60)
    public var loginPerUsername = RateLimit(name: "login-user", limit: 10, windowSeconds: 60)
    public var refreshPerAddress = RateLimit(name: "refresh-ip", limit: 60, windowSeconds: 60)
    /// Password changes per user: each attempt is a guess at the current password by whoever
    /// holds the access token.
    public var passwordChangesPerUser = RateLimit(name: "password-user", limit: 10, windowSeconds: 3_600)

    public init() {}
}
