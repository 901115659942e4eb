import Dispatch

/// Shutdown waits for the requests in flight to complete. Rather than polling the count, it
/// sleeps on `drained`, which the completion that brings the count to zero signals while
/// draining. The signal comes from libmicrohttpd's completion callback on a loop, which never
/// waits on the shutting-down thread, so the wait cannot hold up what it waits for.
extension ServerCore {
    /// libmicrohttpd has the request line of a new request.
    func requestBegan() {
        requestsInFlight.add(1, ordering: .relaxed)
    }

    /// libmicrohttpd has released a request.
    func requestCompleted() {
        // Sequentially consistent, as in `startDraining` and `waitUntilDrained`: either this
        // sees `draining` set, or the waiter sees the count this leaves. Otherwise each could
        // miss the other's write, and shutdown would sleep until its deadline.
        let left = requestsInFlight.subtract(1, ordering: .sequentiallyConsistent).newValue
        if left == 0 && draining.load(ordering: .sequentiallyConsistent) {
            drained.signal()
        }
    }

    /// Responses from now on close their connection, and completions signal `drained`.
    func startDraining() {
        draining.store(true, ordering: .sequentiallyConsistent)
    }

    /// After `startDraining`: waits until no request is in flight or `deadline` has passed, and
    /// returns how many still are.
    func waitUntilDrained(by deadline: ContinuousClock.Instant) -> Int {
        while true {
            let inFlight = requestsInFlight.load(ordering: .sequentiallyConsistent)
            let left = ContinuousClock.now.duration(to: deadline)
            guard inFlight > 0, left > .zero else { return inFlight }
            // A signal may be stale (the count rose again after reaching zero, as a kept-alive
            // connection sends another request): the loop looks at the count again.
            _ = drained.wait(timeout: .now() + .nanoseconds(Self.nanoseconds(min(left, .seconds(3600)))))
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
