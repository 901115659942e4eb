#if canImport(Glibc)
import Glibc
#endif
import EventLoops
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct EventLoopTests {
    @Test func executeRunsClosuresOnTheLoopThreadInSubmissionOrder() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let seen = Recorded<(index: Int, onLoop: Bool)>()
        for index in 0..<200 {
            loop.execute { seen.append((index, EventLoop.current === loop)) }
        }
        // Queued after the 200, so it runs after them.
        let count = loop.executeAndWait { seen.all.count }
        #expect(count == 200)
        let runs = seen.all
        #expect(runs.map(\.index) == Array(0..<200))
        #expect(runs.allSatisfy { $0.onLoop })
        #expect(EventLoop.current == nil)
        #expect(!loop.inLoop)
    }

    @Test func executeAndWaitReturnsTheClosuresValueFromTheLoop() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let answer = loop.executeAndWait { (EventLoop.current === loop, loop.inLoop, 6 * 7) }
        #expect(answer == (true, true, 42))
    }

    @Test func timersFireInDeadlineOrderAndNeverEarly() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let fired = Recorded<(delay: Int64, elapsed: Int64, onLoop: Bool)>()
        let start = monotonicNanoseconds()
        // Inserted out of order; 80 ms apart, so a busy machine cannot swap them.
        for delay in [170, 10, 250, 90] as [Int64] {
            loop.after(.milliseconds(delay)) {
                let elapsed = monotonicNanoseconds() - start
                fired.append((delay, elapsed, EventLoop.current === loop))
            }
        }
        #expect(await eventually { fired.all.count == 4 })
        let runs = fired.all
        #expect(runs.map(\.delay) == [10, 90, 170, 250])
        for run in runs {
            #expect(run.elapsed >= run.delay * 1_000_000, "the \(run.delay) ms timer fired after \(run.elapsed) ns")
            #expect(run.onLoop)
        }
    }

    @Test func aTimerSetOnTheLoopThreadWaitsItsWholeDelay() async throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        let fired = Recorded<Int64>()
        loop.execute {
            let start = monotonicNanoseconds()
            loop.after(.milliseconds(120)) { fired.append(monotonicNanoseconds() - start) }
        }
        #expect(await eventually { fired.all.count == 1 })
        let elapsed = fired.all.first ?? 0
        #expect(elapsed >= 120_000_000, "a 120 ms timer fired after \(elapsed) ns")
    }

    @Test func aTaskPreferringTheLoopStaysOnItAcrossAReadinessWait() async throws {
        try await withLoopAndSocketPair { loop, reader, writer in
            let resumed = Flag()
            let task = Task(executorPreference: loop) { () -> (before: Bool, after: Bool, byte: UInt8) in
                let before = EventLoop.current === loop
                try await loop.ready(reader, for: .readable)
                resumed.set()
                let after = EventLoop.current === loop
                var byte: UInt8 = 0
                _ = read(reader, &byte, 1)
                return (before, after, byte)
            }
            // Nothing written yet: the task must still be waiting.
            try await Task.sleep(for: .milliseconds(100))
            #expect(!resumed.isSet)

            var byte: UInt8 = 0x2A
            #expect(write(writer, &byte, 1) == 1)
            #expect(await eventually { resumed.isSet })
            guard resumed.isSet else { return }  // a hung task would hang the test
            let result = try await task.value
            #expect(result.before)
            #expect(result.after)
            #expect(result.byte == 0x2A)
        }
    }

    @Test func readinessWaitsFromOffTheLoopResumeOnceEachAndBadSocketsThrow() async throws {
        try await withLoopAndSocketPair { loop, reader, writer in
            // Waits armed from a thread that is not the loop's, on the same socket in turn: the
            // first arms it afresh, the second re-arms it.
            for value: UInt8 in [1, 2] {
                let resumed = Flag()
                let task = Task.detached { () -> UInt8 in
                    try await loop.ready(reader, for: .readable)
                    resumed.set()
                    var byte: UInt8 = 0
                    _ = read(reader, &byte, 1)
                    return byte
                }
                try await Task.sleep(for: .milliseconds(50))
                #expect(!resumed.isSet)
                var byte = value
                #expect(write(writer, &byte, 1) == 1)
                #expect(await eventually { resumed.isSet })
                guard resumed.isSet else { return }
                #expect(try await task.value == value)
            }
            await #expect(throws: EventLoopError.self) { try await loop.ready(-1, for: .readable) }
        }
    }

    #if DEBUG
    /// A method for the loop's thread only, called from another, stops a debug build at once
    /// rather than racing the loop for its state.
    @Test func loopThreadOnlyMethodsStopADebugBuildOffTheLoop() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            // Exits cleanly, failing the expectation, if there is no loop to misuse.
            guard let loop = try? EventLoop() else { exit(0) }
            loop.schedule(after: .seconds(1)) {}
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("schedule(after:_:) runs on its event loop's thread only"), "\(message)")
    }
    #endif

    @Test func stopRunsWorkAlreadyQueuedAndReturns() throws {
        let loop = try EventLoop()
        let ran = Recorded<Int>()
        loop.execute {
            usleep(30_000)  // still busy when stop is called
            ran.append(1)
        }
        for index in 2...5 {
            loop.execute { ran.append(index) }
        }
        loop.stop()
        #expect(ran.all == [1, 2, 3, 4, 5])
        loop.stop()  // a second stop returns at once
    }

    @Test func batchedLinesGoOutAfterTheDelayWholeAndInOrder() throws {
        let loop = try EventLoop()
        defer { loop.stop() }
        var descriptors: [Int32] = [0, 0]
        try #require(pipe(&descriptors) == 0)
        let (reader, writer) = (descriptors[0], descriptors[1])
        defer {
            close(reader)
            close(writer)
        }
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
        @Sendable func drain() -> [UInt8] {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = read(reader, &chunk, chunk.count)
                guard count > 0 else { return bytes }
                bytes += chunk[..<count]
            }
        }

        // Within one turn of the loop nothing is written, nor when the loop next sleeps: the
        // lines go out together once the delay has passed.
        let short = (0..<100).map { Array("line \($0)\n".utf8) }
        let queued = ContinuousClock.now
        let duringTurn: [UInt8] = loop.executeAndWait {
            for line in short { loop.writeBatched(line, to: writer) }
            return drain()
        }
        #expect(duringTurn.isEmpty)
        let expected = Array(short.joined())
        var received: [UInt8] = []
        var firstArrival: ContinuousClock.Instant?
        let deadline = ContinuousClock.now + .seconds(3)
        while received.count < expected.count && ContinuousClock.now < deadline {
            received += drain()
            if firstArrival == nil && !received.isEmpty { firstArrival = .now }
            usleep(1000)
        }
        #expect(received == expected)
        // A lower bound only: a loaded machine may deliver them later, never sooner.
        let waited = firstArrival.map { queued.duration(to: $0) }
        #expect(waited.map { $0 >= EventLoop.outputDelay } == true, "first lines after \(String(describing: waited))")

        // More than a batch within one turn: whole batches go out without waiting for the end.
        let long = (0..<60).map { Array(String(repeating: "x", count: 99).utf8) + Array("\($0)\n".utf8) }
        let early: [UInt8] = loop.executeAndWait {
            for line in long { loop.writeBatched(line, to: writer) }
            return drain()
        }
        #expect(!early.isEmpty && early.count <= EventLoop.outputBatch)
        #expect(early.last == UInt8(ascii: "\n"))
    }
}

/// Values appended from the loop thread and read from the test's.
private final class Recorded<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Runs `body` with a loop and two connected Unix stream sockets, a reader and a writer, and
/// stops and closes them after.
private func withLoopAndSocketPair(_ body: (EventLoop, Int32, Int32) async throws -> Void) async throws {
    let loop = try EventLoop()
    defer { loop.stop() }
    var sockets: [Int32] = [0, 0]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0)
    defer { sockets.forEach { close($0) } }
    try await body(loop, sockets[0], sockets[1])
}

private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// The clock the loop's timers use.
private func monotonicNanoseconds() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}
