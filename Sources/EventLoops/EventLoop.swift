#if canImport(Glibc)
import Glibc
#endif
import CEpoll
import Dispatch
import Synchronization

/// One thread that waits on many sockets with epoll and runs Swift tasks between waits.
///
/// Request handling lives here: the HTTP server reads and answers on it, and database
/// connections send and collect their pipelines on it without blocking, so a single wake-up
/// serves every socket that became ready meanwhile. As a `TaskExecutor`, it runs the jobs of
/// tasks that prefer it (`Task(executorPreference:)`), so a handler awaiting the database
/// continues on this thread with no hop to another.
///
/// Nothing that blocks may run here: blocking work goes to `BlockingWork`.
///
/// State touched only on the loop thread (watchers, timers) needs no lock; jobs and closures
/// may be submitted from any thread. Hence `@unchecked Sendable`.
public final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// What `submit` queues.
    private enum Work {
        case job(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    private struct Timer {
        var deadline: Int64
        var action: () -> Void
    }

    private let epoll: Int32
    /// Written to wake the loop when work arrives from another thread.
    private let wakeup: Int32
    private let queue = Mutex<[Work]>([])
    private let running = Atomic<Bool>(true)
    private var thread: pthread_t?

    /// What a ready socket does: call its watcher's handler, every time, or resume the one
    /// task waiting for it (`ready`), once.
    private enum Watcher {
        case repeating((UInt32) -> Void)
        case waiting(UnsafeContinuation<Void, any Error>)
    }

    // Touched on the loop thread only: the methods that reach them assert it.
    /// Indexed by descriptor: descriptors are small and reused, so each event finds its
    /// watcher with an array load rather than a hash, and a wait stores its continuation
    /// without a closure around it.
    private var watchers: [Watcher?] = []
    /// Lines not written yet, and where they go (see `EventLoop+BatchedOutput`).
    var pendingOutput: [UInt8] = []
    var pendingDescriptor: Int32 = 2
    /// Sorted by deadline, soonest last.
    private var timers: [Timer] = []
    private let name: String

    public init(name: String = "event-loop") throws(EventLoopError) {
        self.name = name
        // Made in locals and closed here on failure: once every property is set, a throw runs
        // deinit, which must not close the same numbers a second time.
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw EventLoopError(operation: "epoll_create1", code: errno) }
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wakeup >= 0 else {
            let code = errno
            close(epoll)
            throw EventLoopError(operation: "eventfd", code: code)
        }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(fd: wakeup))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wakeup, &event) == 0 else {
            let code = errno
            close(wakeup)
            close(epoll)
            throw EventLoopError(operation: "epoll_ctl", code: code)
        }
        self.epoll = epoll
        self.wakeup = wakeup
        let context = Unmanaged.passRetained(self).toOpaque()
        var created = pthread_t()
        let status = pthread_create(&created, nil, { pointer in
            guard let pointer else { return nil }
            let loop = Unmanaged<EventLoop>.fromOpaque(pointer).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard status == 0 else {
            // deinit closes the descriptors once this last reference goes.
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw EventLoopError(operation: "pthread_create", code: status)
        }
        thread = created
    }

    deinit {
        close(wakeup)
        close(epoll)
    }

    /// Whether the caller runs on this loop's thread.
    public var inLoop: Bool { EventLoop.current === self }

    /// Stops a debug build where a loop-thread-only method is called from another thread; a
    /// release build compiles it out, so the loop's own calls cost nothing.
    func assertInLoop(_ function: StaticString = #function, file: StaticString = #file, line: UInt = #line) {
        assert(inLoop, "\(function) runs on its event loop's thread only", file: file, line: line)
    }

    /// The loop whose thread the caller runs on, if any.
    public static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Thread-specific: each loop's thread points it at its loop while it runs.
    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    // MARK: Submitting work

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `work` on the loop thread, after whatever is queued already.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        submit(.closure(work))
    }

    private func submit(_ work: Work) {
        queue.withLock { $0.append(work) }
        // The loop drains its queue before it sleeps, so only another thread needs to wake it.
        if !inLoop {
            var one: UInt64 = 1
            _ = write(wakeup, &one, 8)
        }
    }

    /// Runs `work` on the loop and waits for it. Only for threads other than the loop's, and
    /// only before `stop`.
    public func executeAndWait<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        precondition(!inLoop, "executeAndWait would wait for itself on the loop thread")
        let done = Mutex<T?>(nil)
        let finished = DispatchSemaphore(value: 0)
        execute {
            let value = work()
            done.withLock { $0 = value }
            finished.signal()
        }
        finished.wait()
        return done.withLock { $0! }
    }

    /// Stops the loop after the work queued so far and waits for its thread to end.
    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        var one: UInt64 = 1
        _ = write(wakeup, &one, 8)
        if let thread, !inLoop { pthread_join(thread, nil) }
    }

    // MARK: On the loop thread

    /// Calls `handler` with the epoll events each time `socket` is ready for `events`, until
    /// `unwatch`. On the loop thread only.
    public func watch(_ socket: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) throws(EventLoopError) {
        assertInLoop()
        var event = epoll_event(events: events, data: epoll_data_t(fd: socket))
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else {
            throw EventLoopError(operation: "epoll_ctl", code: errno)
        }
        setWatcher(.repeating(handler), for: socket)
    }

    /// Stops watching `socket`. On the loop thread only.
    public func unwatch(_ socket: Int32) {
        assertInLoop()
        guard watcher(for: socket) != nil else { return }
        setWatcher(nil, for: socket)
        var event = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, socket, &event)
    }

    /// Resumes `continuation` once, when `socket` is next ready for `events` (or has failed).
    /// The socket stays registered, disarmed, until it is closed, which takes it out of epoll;
    /// a later socket with the same number is registered afresh. On the loop thread only.
    private func arm(_ socket: Int32, events: UInt32, _ continuation: UnsafeContinuation<Void, any Error>) {
        assertInLoop()
        var event = epoll_event(events: events | EPOLLONESHOT.rawValue, data: epoll_data_t(fd: socket))
        if epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event) != 0 {
            guard errno == ENOENT, epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) == 0 else {
                continuation.resume(throwing: EventLoopError(operation: "epoll_ctl", code: errno))
                return
            }
        }
        setWatcher(.waiting(continuation), for: socket)
    }

    private func watcher(for socket: Int32) -> Watcher? {
        let index = Int(socket)
        return watchers.indices.contains(index) ? watchers[index] : nil
    }

    private func setWatcher(_ watcher: Watcher?, for socket: Int32) {
        let index = Int(socket)
        if index >= watchers.count {
            guard watcher != nil else { return }
            watchers.append(contentsOf: repeatElement(nil, count: index + 1 - watchers.count))
        }
        watchers[index] = watcher
    }

    /// Timers set and not fired yet. On the loop thread only.
    public var scheduledTimerCount: Int {
        assertInLoop()
        return timers.count
    }

    /// Runs `action` on the loop once `delay` has passed. On the loop thread only.
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        assertInLoop()
        let (seconds, attoseconds) = delay.components
        let deadline = Self.now() + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let index = timers.firstIndex { $0.deadline <= deadline } ?? timers.endIndex
        timers.insert(Timer(deadline: deadline, action: action), at: index)
    }

    /// Resumes once `socket` is ready for `events` (or has failed: the caller's next read or
    /// write finds out). Callable from any thread; the wait itself happens on the loop.
    public func ready(_ socket: Int32, for readiness: Readiness) async throws {
        let events = readiness.epollEvents
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            if inLoop {
                arm(socket, events: events, continuation)
            } else {
                execute { self.arm(socket, events: events, continuation) }
            }
        }
    }

    /// Runs `action` on the loop once `delay` has passed; callable from any thread.
    public func after(_ delay: Duration, _ action: @escaping @Sendable () -> Void) {
        if inLoop {
            schedule(after: delay, action)
        } else {
            execute { self.schedule(after: delay, action) }
        }
    }

    private func run() {
        pthread_setspecific(Self.currentKey, Unmanaged.passUnretained(self).toOpaque())
        chirp_name_thread(name)
        defer { pthread_setspecific(Self.currentKey, nil) }
        let executor = asUnownedTaskExecutor()
        var events = [epoll_event](repeating: epoll_event(), count: 128)
        // The queue and this batch trade places each round, so both keep their capacity and
        // queuing a job does not allocate.
        var batch: [Work] = []
        while running.load(ordering: .acquiring) {
            // Work queued by work runs in the same turn, but only for a few rounds: sockets and
            // timers get their turn even if tasks keep queuing more.
            for _ in 0..<4 {
                queue.withLock { swap(&batch, &$0) }
                if batch.isEmpty { break }
                for work in batch {
                    switch work {
                    case .job(let job): job.runSynchronously(on: executor)
                    case .closure(let closure): closure()
                    }
                }
                batch.removeAll(keepingCapacity: true)
            }
            let timeout = queue.withLock { $0.isEmpty } ? waitMilliseconds() : 0
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epoll, $0.baseAddress, Int32($0.count), timeout)
            }
            if count > 0 {
                for event in events.prefix(Int(count)) {
                    let socket = event.data.fd
                    if socket == wakeup {
                        var value: UInt64 = 0
                        _ = read(wakeup, &value, 8)
                    } else {
                        switch watcher(for: socket) {
                        case .repeating(let handler):
                            handler(event.events)
                        case .waiting(let continuation):
                            setWatcher(nil, for: socket)
                            continuation.resume()
                        case nil:
                            break
                        }
                    }
                }
            }
            fireTimers()
        }
        defer { flushBatchedOutput() }
        // Work queued before the stop still runs, so nobody waits on it forever.
        for work in queue.withLock({ $0 }) {
            switch work {
            case .job(let job): job.runSynchronously(on: executor)
            case .closure(let closure): closure()
            }
        }
    }

    private func waitMilliseconds() -> Int32 {
        guard let soonest = timers.last else { return -1 }
        let remaining = soonest.deadline - Self.now()
        if remaining <= 0 { return 0 }
        return Int32(min((remaining + 999_999) / 1_000_000, 60_000))
    }

    private func fireTimers() {
        let now = Self.now()
        while let soonest = timers.last, soonest.deadline <= now {
            timers.removeLast()
            soonest.action()
        }
    }

    private static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

public enum Readiness: Sendable {
    case readable
    case writable

    public var epollEvents: UInt32 { self == .readable ? EPOLLIN.rawValue : EPOLLOUT.rawValue }
}

public struct EventLoopError: Error, CustomStringConvertible {
    public var operation: String
    public var code: Int32

    public var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}

