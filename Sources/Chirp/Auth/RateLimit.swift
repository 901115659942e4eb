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
    /// Every login attempt from an address, right or wrong: each costs a password hash.
    public var loginPerAddress = RateLimit(name: "login-ip", limit: 60, windowSeconds: 60)
    /// Failed logins for one username from one address; past it, that address's attempts for
    /// that username are refused (429). Successes are not counted, and another address's
    /// failures never lock out the user's own.
    public var loginFailuresPerUsernameAndAddress = RateLimit(name: "login-fail", limit: 10, windowSeconds: 900)
    /// Failed logins for one username from anywhere; past it, every attempt for it waits
    /// `loginSlowdown` before its password is checked (a guesser spread over many addresses is
    /// slowed), and the right password still signs in.
    public var loginFailuresPerUsername = RateLimit(name: "login-fail-user", limit: 100, windowSeconds: 3_600)
    public var loginSlowdown: Duration = .seconds(2)
    public var refreshPerAddress = RateLimit(name: "refresh-ip", limit: 60, windowSeconds: 60)
    /// Password changes per user: each attempt is a guess at the current password by whoever
    /// holds the access token.
    public var passwordChangesPerUser = RateLimit(name: "password-user", limit: 10, windowSeconds: 3_600)

    public init() {}
}
