import EventLoops
import Observability
import Synchronization

/// Runs a job every `interval` as a task on an event loop, one run at a time: the job's
/// database work waits on the loop like a request's, and no thread is held between runs. A
/// failed run is logged and the next one runs on schedule; `stop` ends the schedule.
final class PeriodicJob: Sendable {
    private let name: String
    private let interval: Duration
    private let logger: Logger
    private let loop: EventLoop
    private let job: @Sendable () async throws -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(name: String, interval: Duration, loop: EventLoop, logger: Logger, job: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.interval = interval
        self.loop = loop
        self.logger = logger
        self.job = job
    }

    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task(executorPreference: loop) { [name, interval, logger, job] in
                while (try? await Task.sleep(for: interval)) != nil {
                    do {
                        try await job()
                    } catch where !Task.isCancelled {
                        logger.warning("\(name) failed", ["error": .string("\(error)")])
                    } catch {
                        return  // stopped mid-run: the failure is the shutdown's
                    }
                }
            }
        }
    }

    /// No run starts after this; one in progress finishes.
    func stop() {
        task.withLock { $0?.cancel() }
    }
}
