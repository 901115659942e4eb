import HTTP

/// The API at a glance: every method and path, and the handler that answers it. The handlers
/// live by concern, beside their queries (`Feed/FeedRoutes`, `Likes/LikeRoutes`, …).
struct Routes {
    var ops: OpsRoutes
    var openAPI: OpenAPIRoute
    var problemTypes = ProblemTypeRoutes()
    var auth: AuthRoutes
    var feed: FeedRoutes
    var posts: PostRoutes
    var profiles: ProfileRoutes
    var explore: ExploreRoutes
    var likes: LikeRoutes
    var comments: CommentRoutes
    var follows: FollowRoutes
    var notifications: NotificationRoutes
    var relations: UserRelationRoutes
    var search: SearchRoutes

    /// Every route on `router`; `/metrics` too unless it has a listener of its own
    /// (`ChirpConfiguration.metricsHTTP`, `registerMetrics`).
    func register(on router: Router, metrics: Bool) {
        router.add(.GET, "/healthz", ops.health)
        router.add(.GET, "/readyz", ops.readiness)
        if metrics { registerMetrics(on: router) }
        router.add(.GET, "/openapi.yaml", openAPI.document)
        router.add(.GET, "/problems/:code", problemTypes.show)

        router.add(.POST, "/v1/auth/signup", auth.signUp)
        router.add(.POST, "/v1/auth/login", auth.logIn)
        router.add(.POST, "/v1/auth/refresh", auth.refresh)
        router.add(.POST, "/v1/auth/logout", auth.logOut)
        router.add(.POST, "/v1/auth/logout-all", auth.logOutEverywhere)

        router.add(.GET, "/v1/posts", feed.globalTimeline)
        router.add(.GET, "/v1/feed", feed.homeFeed)
        router.add(.GET, "/v1/users/:username/posts", feed.authorTimeline)

        router.add(.POST, "/v1/posts", posts.create)
        router.add(.GET, "/v1/posts/:id", posts.show)
        router.add(.PATCH, "/v1/posts/:id", posts.edit)
        router.add(.DELETE, "/v1/posts/:id", posts.delete)

        router.add(.GET, "/v1/users/:username", profiles.show)
        router.add(.GET, "/v1/me", profiles.me)
        router.add(.PATCH, "/v1/me", profiles.updateMe)
        router.add(.DELETE, "/v1/me", auth.deleteAccount)
        router.add(.PUT, "/v1/me/password", auth.changePassword)

        router.add(.GET, "/v1/explore", explore.explore)

        router.add(.PUT, "/v1/posts/:id/like", likes.like)
        router.add(.DELETE, "/v1/posts/:id/like", likes.unlike)
        router.add(.GET, "/v1/posts/:id/likes", likes.likers)

        router.add(.GET, "/v1/posts/:id/comments", comments.thread)
        router.add(.POST, "/v1/posts/:id/comments", comments.create)
        router.add(.GET, "/v1/comments/:id", comments.show)
        router.add(.PATCH, "/v1/comments/:id", comments.edit)
        router.add(.GET, "/v1/comments/:id/replies", comments.replies)
        router.add(.DELETE, "/v1/comments/:id", comments.delete)

        router.add(.PUT, "/v1/users/:username/follow", follows.follow)
        router.add(.DELETE, "/v1/users/:username/follow", follows.unfollow)
        router.add(.GET, "/v1/users/:username/followers", follows.followers)
        router.add(.GET, "/v1/users/:username/following", follows.following)

        router.add(.PUT, "/v1/users/:username/block", relations.block)
        router.add(.DELETE, "/v1/users/:username/block", relations.unblock)
        router.add(.PUT, "/v1/users/:username/mute", relations.mute)
        router.add(.DELETE, "/v1/users/:username/mute", relations.unmute)
        router.add(.GET, "/v1/me/blocks", relations.blocks)
        router.add(.GET, "/v1/me/mutes", relations.mutes)

        router.add(.GET, "/v1/notifications", notifications.list)
        router.add(.GET, "/v1/notifications/unread-count", notifications.unreadCount)
        router.add(.POST, "/v1/notifications/read", notifications.markRead)

        router.add(.GET, "/v1/search/posts", search.posts)
        router.add(.GET, "/v1/search/users", search.users)
    }

    /// The operators' routes of the metrics listener.
    func registerMetrics(on router: Router) {
        router.add(.GET, "/metrics", ops.metricsPage)
    }
}
