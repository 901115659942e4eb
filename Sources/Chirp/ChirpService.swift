import EventLoops
import Foundation
import HTTP
import Observability
import Postgres

/// The running service: the connection pool, the routes, and the HTTP server in front, all on
/// one event loop (see `HTTPServer`).
public final class ChirpService: Sendable {
    public let configuration: ChirpConfiguration
    public let pool: PostgresPool
    /// On the auth login: the only connections that can reach credentials (`authDatabase`).
    public let authPool: PostgresPool
    public let metrics: Metrics
    public let logger: Logger
    public let router: Router
    private let server: HTTPServer
    /// `/metrics` on a listener of its own, when configured (`metricsHTTP`).
    private let metricsServer: HTTPServer?
    private let eventLoops: [EventLoop]
    let housekeeping: Housekeeping
    let exploreRefresher: ExploreRefresher
    let replicas: Replicas?
    private let readiness = Readiness()

    public init(configuration: ChirpConfiguration) throws {
        self.configuration = configuration
        logger = Logger(label: "chirp", minimumLevel: configuration.logLevel)
        eventLoops = try (0..<max(1, configuration.http.eventLoops)).map { _ in try EventLoop(name: "chirp") }
        pool = try PostgresPool(configuration: configuration.database, pool: configuration.pool, eventLoop: eventLoops[0])
        authPool = try PostgresPool(configuration: configuration.authDatabase, pool: configuration.authPool, eventLoop: eventLoops[0])
        metrics = Metrics()
        replicas = configuration.replicas.isEmpty ? nil : try Replicas(
            configuration.replicas, primary: pool, pool: configuration.pool, maxLag: configuration.replicaMaxLag,
            loop: eventLoops[0], logger: logger)
        router = Router(logger: logger)
        let hasher = PasswordHasher(parameters: configuration.passwordHashing)
        metrics.registerGauge("password_hashes_total", help: "Argon2id hashes and verifications performed.") {
            Double(hasher.operations)
        }
        let tokens = AccessTokens(secret: configuration.jwtSecret)
        let authenticator = Authenticator(tokens: tokens)
        let services = Services(
            pool: pool, replicas: replicas, authenticator: authenticator, cursors: CursorCodec(secret: configuration.jwtSecret),
            etags: ETags(secret: configuration.jwtSecret), metrics: metrics)
        let idempotency = Idempotency(
            pool: pool, fingerprintKey: HMACKey(HMAC.subkey(of: configuration.jwtSecret, for: "chirp idempotency fingerprints v1")))
        let routes = Routes(
            ops: OpsRoutes(pool: pool, replicas: replicas, readiness: readiness, metrics: metrics),
            openAPI: OpenAPIRoute(path: configuration.openAPIPath, logger: logger),
            auth: AuthRoutes(
                pool: authPool, hasher: hasher, tokens: tokens, authenticator: authenticator,
                idempotency: Idempotency(pool: authPool, fingerprintKey: idempotency.fingerprintKey),
                limits: configuration.rateLimits, decoyHash: (try? hasher.hash(UUID().uuidString)) ?? ""),
            feed: FeedRoutes(services: services),
            posts: PostRoutes(services: services, idempotency: idempotency),
            profiles: ProfileRoutes(services: services),
            explore: ExploreRoutes(services: services),
            likes: LikeRoutes(services: services),
            comments: CommentRoutes(services: services, idempotency: idempotency),
            follows: FollowRoutes(services: services),
            notifications: NotificationRoutes(services: services),
            relations: UserRelationRoutes(services: services),
            search: SearchRoutes(services: services, limits: configuration.search))
        routes.register(on: router, metrics: configuration.metricsHTTP == nil)
        if let metricsHTTP = configuration.metricsHTTP {
            let metricsRouter = Router(logger: logger)
            routes.registerMetrics(on: metricsRouter)
            metricsServer = try HTTPServer(
                configuration: metricsHTTP, middleware: [RequestIDMiddleware()], logger: logger, eventLoops: [eventLoops[0]],
                handler: { request in await metricsRouter.respond(to: request) })
        } else {
            metricsServer = nil
        }
        housekeeping = Housekeeping(pool: authPool, loop: eventLoops[0], logger: logger)
        exploreRefresher = ExploreRefresher(pool: pool, loop: eventLoops[0], logger: logger)
        let router = self.router
        let cors = configuration.cors
        server = try HTTPServer(
            configuration: configuration.http,
            middleware: [
                RequestIDMiddleware(),
                AccessLogMiddleware(logger: logger),
                MetricsMiddleware(metrics: metrics),
            ] + (cors.map { [CORSMiddleware(policy: $0)] } ?? []),
            logger: logger,
            eventLoops: eventLoops,
            handler: { request in
                if let preflight = cors?.preflight(request) { return preflight }
                return await router.respond(to: request)
            })
    }

    /// The bound port (useful when configured with port 0).
    public var port: Int { server.port }

    /// The metrics listener's bound port, when it has one.
    public var metricsPort: Int? { metricsServer?.port }

    public func start() throws {
        try server.start()
        try metricsServer?.start()
        housekeeping.start()
        exploreRefresher.start()
        replicas?.start()
    }

    /// Answers `/readyz` with 503 from now on, while serving every request as before: a load
    /// balancer checking it stops sending new connections here before `shutdown` stops
    /// accepting them.
    public func stopBeingReady() {
        readiness.withdraw()
        logger.info("not ready: shutting down")
    }

    /// Stops accepting, lets in-flight requests finish within the grace period, then closes
    /// the pool. Every acknowledged write has committed before its response was sent.
    public func shutdown() {
        readiness.withdraw()
        server.shutdown()
        metricsServer?.shutdown()
        housekeeping.stop()
        exploreRefresher.stop()
        replicas?.stop()
        pool.close()
        authPool.close()
        eventLoops.forEach { $0.stop() }
        logger.info("stopped")
    }
}
