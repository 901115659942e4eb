import Dispatch
import Observability
import Synchronization

/// Runs a blocking job every `interval` on a Dispatch queue of its own, never on Swift's
/// cooperative pool, since the job's database calls block. A failed run is logged and the
/// next one runs on schedule.
// The timer is set up once in `init`; DispatchSource calls are themselves thread-safe.
final class PeriodicJob: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    private let queue: DispatchQueue
    private let started = Atomic<Bool>(false)

    init(name: String, interval: Duration, logger: Logger, job: @escaping @Sendable () throws -> Void) {
        queue = DispatchQueue(label: "chirp.\(name)")
        timer = DispatchSource.makeTimerSource(queue: queue)
        let milliseconds = Int(interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000)
        timer.schedule(deadline: .now() + .milliseconds(milliseconds), repeating: .milliseconds(milliseconds))
        timer.setEventHandler {
            do {
                try job()
            } catch {
                logger.warning("\(name) failed", ["error": .string("\(error)")])
            }
        }
    }

    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    deinit {
        // Dispatch traps when a suspended source is released, as one never started is (a
        // service whose server failed to bind): cancel it, then resume it, so it never fires.
        timer.cancel()
        if !started.exchange(true, ordering: .acquiringAndReleasing) { timer.resume() }
    }
}
