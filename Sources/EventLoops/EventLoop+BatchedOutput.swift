#if canImport(Glibc)
import Glibc
#endif

/// Log lines written from a loop are batched: a busy loop would otherwise make one `write(2)`
/// per request for its access log line. They go out `outputDelay` after the first of a batch
/// was queued, or once they fill a batch, whichever comes first. Flushing whenever the loop is
/// about to sleep would not batch under load: a loop waiting on its database sleeps between
/// almost every pair of requests.
extension EventLoop {
    /// A batch's size: a write to a pipe of at most `PIPE_BUF` bytes is never interleaved with
    /// another writer's, so lines from several loops stay whole.
    public static let outputBatch = 4096

    /// The longest a queued line waits.
    public static let outputDelay: Duration = .milliseconds(50)

    /// Queues whole lines (newline included) for `descriptor`. On the loop thread only.
    public func writeBatched(_ lines: [UInt8], to descriptor: Int32 = 2) {
        lines.withUnsafeBytes { writeBatched($0, to: descriptor) }
    }

    /// The same, for lines in memory the caller owns; they are copied before this returns.
    public func writeBatched(_ lines: UnsafeRawBufferPointer, to descriptor: Int32 = 2) {
        assertInLoop()
        if descriptor != pendingDescriptor || pendingOutput.count + lines.count > Self.outputBatch {
            flushBatchedOutput()
            pendingDescriptor = descriptor
        }
        if lines.count > Self.outputBatch {
            Descriptor.writeAll(lines, to: descriptor)
        } else {
            if pendingOutput.isEmpty {
                // The timer lives in the loop's own list and runs on its thread, so `self` is there.
                schedule(after: Self.outputDelay) { [unowned self] in flushBatchedOutput() }
            }
            pendingOutput.append(contentsOf: lines)
        }
    }

    /// Writes what is queued now. On the loop thread only.
    public func flushBatchedOutput() {
        assertInLoop()
        guard !pendingOutput.isEmpty else { return }
        Descriptor.writeAll(pendingOutput, to: pendingDescriptor)
        pendingOutput.removeAll(keepingCapacity: true)
    }
}

public enum Descriptor {
    /// Writes all of `bytes` with as few `write(2)` calls as it takes; gives up on an error.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
    }

    public static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}
