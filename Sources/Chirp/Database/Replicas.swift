import EventLoops
import Foundation
import Observability
import Postgres
import Synchronization

/// The streaming replicas reads may go to (`DATABASE_REPLICA_URLS`), and which of them may be
/// used right now. Each is probed every `probeInterval`, on its own schedule so that one
/// hanging replica delays no other, and the primary's write position is sampled on another:
/// a replica is used while its last probe is recent, it is still in recovery, and it trails the
/// primary by at most `maxLag` (`PrimaryPositions`). One that is down, unreachable, promoted or
/// lagging is skipped within about a second and used again after its next good probe; a read
/// that fails on one marks it failed at once and is answered by the primary (`Services.read`).
final class Replicas: Sendable {
    struct Replica: Sendable {
        let index: Int
        /// `host:port/dbname`, for logs and metrics.
        let name: String
        let pool: PostgresPool
    }

    let members: [Replica]
    let maxLag: Duration
    /// A replica whose last good probe is older than this is skipped.
    static let staleAfter: Duration = .seconds(1)
    static let probeInterval: Duration = .milliseconds(250)

    private struct Health {
        var lastSeen: ContinuousClock.Instant?
        var inRecovery = false
        var lag: Duration?
        /// A read failed here since the last good probe.
        var failedAt: ContinuousClock.Instant?
    }

    private struct State {
        var positions = PrimaryPositions()
        var health: [Health]
    }

    private let primary: PostgresPool
    private let state: Mutex<State>
    private let rotation = Atomic<Int>(0)
    /// The probes' and the sampling's schedules, made by `start`.
    private let jobs = Mutex<[PeriodicJob]>([])
    private let loop: EventLoop
    private let logger: Logger

    init(
        _ configurations: [PostgresConfiguration], primary: PostgresPool, pool: PostgresPoolConfiguration, maxLag: Duration,
        loop: EventLoop, logger: Logger
    ) throws {
        self.primary = primary
        self.maxLag = maxLag
        self.loop = loop
        self.logger = logger
        members = try configurations.enumerated().map { index, configuration in
            var configuration = configuration
            // A replica that does not answer is skipped, not waited for.
            configuration.connectTimeoutSeconds = min(configuration.connectTimeoutSeconds, 2)
            let name = "\(configuration.setting("host") ?? "localhost"):\(configuration.setting("port") ?? "5432")/\(configuration.setting("dbname") ?? "")"
            return Replica(index: index, name: name, pool: try PostgresPool(configuration: configuration, pool: pool, eventLoop: loop))
        }
        state = Mutex(State(health: Array(repeating: Health(), count: configurations.count)))
    }

    func start() {
        var jobs: [PeriodicJob] = []
        // A primary that does not answer leaves the samples as they are: replicas then look
        // further and further behind, and are skipped once past `maxLag`.
        jobs.append(PeriodicJob(name: "replication position sampling", interval: Self.probeInterval, loop: loop, logger: logger) {
            [weak self] in await self?.samplePrimary()
        })
        for replica in members {
            jobs.append(PeriodicJob(name: "replica probe", interval: Self.probeInterval, loop: loop, logger: logger) {
                [weak self] in await self?.probe(replica)
            })
        }
        jobs.forEach { $0.start() }
        self.jobs.withLock { $0 = jobs }
    }

    private func samplePrimary() async {
        guard let text = try? await primary.execute(as: .anonymous, readOnly: true, ReplicaQueries.primaryPosition),
              let position = PrimaryPositions.position(text)
        else { return }
        state.withLock { $0.positions.record(position, at: .now) }
    }

    /// One probe of `replica`: whether it is still in recovery, and how far it has replayed.
    /// A failure is logged when the replica was fit until then, not on every probe.
    private func probe(_ replica: Replica) async {
        do {
            let (inRecovery, replayed) = try await replica.pool.execute(as: .anonymous, readOnly: true, ReplicaQueries.replayPosition)
            let now = ContinuousClock.now
            let (wasFit, fit) = state.withLock { state in
                let before = isFit(state.health[replica.index], now: now)
                state.health[replica.index].lastSeen = now
                state.health[replica.index].inRecovery = inRecovery
                state.health[replica.index].lag = PrimaryPositions.position(replayed).flatMap { state.positions.lag(ofReplayed: $0, at: now) }
                state.health[replica.index].failedAt = nil
                return (before, isFit(state.health[replica.index], now: now))
            }
            if fit != wasFit {
                logger.info(fit ? "replica in use" : "replica skipped", [
                    "replica": .string(replica.name), "inRecovery": .bool(inRecovery), "replayed": .string(replayed)])
            }
        } catch {
            let wasFit = state.withLock { state in
                defer { state.health[replica.index].lastSeen = nil }
                return isFit(state.health[replica.index], now: .now)
            }
            if wasFit { logger.warning("replica skipped", ["replica": .string(replica.name), "error": .string("\(error)")]) }
        }
    }

    func stop() {
        jobs.withLock { $0.forEach { $0.stop() } }
        members.forEach { $0.pool.close() }
    }

    /// A replica fit to read from now, taking turns among them; nil when none is.
    /// Called for every read: it looks from a turning start for the first fit replica rather
    /// than collecting the fit ones.
    func pick() -> Replica? {
        let now = ContinuousClock.now
        let start = Int(UInt(bitPattern: rotation.add(1, ordering: .relaxed).newValue) % UInt(max(members.count, 1)))
        return state.withLock { state in
            for offset in members.indices {
                let replica = members[(start + offset) % members.count]
                if isFit(state.health[replica.index], now: now) { return replica }
            }
            return nil
        }
    }

    /// A read failed on `replica` for want of it (connection lost, pool exhausted): skip it
    /// until it answers a probe again.
    func failed(_ replica: Replica, _ error: any Error) {
        let first = state.withLock { state in
            defer { state.health[replica.index].failedAt = .now }
            return state.health[replica.index].failedAt == nil
        }
        if first { logger.warning("replica skipped", ["replica": .string(replica.name), "error": .string("\(error)")]) }
    }

    /// Whether each replica is fit now, and its last measured lag, for `/metrics`.
    func report() -> [(replica: Replica, fit: Bool, lag: Duration?)] {
        let now = ContinuousClock.now
        return state.withLock { state in
            members.map { ($0, isFit(state.health[$0.index], now: now), state.health[$0.index].lag) }
        }
    }

    private func isFit(_ health: Health, now: ContinuousClock.Instant) -> Bool {
        guard let lastSeen = health.lastSeen, now - lastSeen <= Self.staleAfter, health.inRecovery,
              let lag = health.lag, lag <= maxLag
        else { return false }
        return health.failedAt == nil
    }
}
