internal import CTexPipeHTTP
internal import Foundation
import Synchronization

/// HTTP for the remote cache through libcurl's multi interface (`CTexPipeHTTP`): one driver
/// thread, connections kept alive and reused, every request in flight at once up to
/// `connections` per host. Chosen by measurement over `URLSession` (FoundationNetworking), which
/// cost about 0.5 ms of CPU and a burst of system time per request here — see
/// docs/caching-and-ci.md "The remote cache". Calls are synchronous for the caller (one of the
/// cache's lanes) and overlap with every other lane's.
final class HTTPClient: @unchecked Sendable {
    /// An answer: an HTTP status with its body, or how the request failed without one.
    enum Answer: Sendable {
        case status(Int, [UInt8])
        case failed(Failure)
    }

    enum Failure: Sendable, Equatable {
        case timeout, unreachable
        case transport(code: Int)
    }

    /// One request waiting for its answer.
    final class Slot: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        var answer: Answer = .failed(.timeout)
    }

    private let handle: OpaquePointer
    private let slots = Mutex<[UInt64: Slot]>([:])
    private let nextTag = Atomic<UInt64>(1)
    private let stopped = DispatchSemaphore(value: 0)
    let timeout: Double

    init?(timeout: Double, connections: Int) {
        self.timeout = timeout
        // The driver thread answers through this function, with the client as its context.
        let done: tp_http_done = { context, tag, status, body, length, failure, code in
            let client = Unmanaged<HTTPClient>.fromOpaque(context!).takeUnretainedValue()
            let answer: Answer =
                switch failure {
                case Int32(TP_HTTP_OK):
                    .status(status, body.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [])
                case Int32(TP_HTTP_TIMEOUT): .failed(.timeout)
                case Int32(TP_HTTP_UNREACHABLE): .failed(.unreachable)
                default: .failed(.transport(code: Int(code)))
                }
            client.answered(tag, answer)
        }
        // The context is the client itself, set before any request can be answered.
        guard let h = tp_http_new(Int(timeout * 1000), connections, done, nil) else { return nil }
        handle = h
        tp_http_set_context(h, Unmanaged.passUnretained(self).toOpaque())
        /// The handle crosses to the driver thread, which alone runs transfers on it.
        struct Driver: @unchecked Sendable { let handle: OpaquePointer }
        let driver = Driver(handle: h)
        let thread = Thread { [stopped] in
            tp_http_run(driver.handle)
            stopped.signal()
        }
        thread.name = "texpipe http"
        thread.start()
    }

    deinit {
        tp_http_stop(handle)
        stopped.wait()
        tp_http_free(handle)
    }

    private func answered(_ tag: UInt64, _ answer: Answer) {
        guard let slot = slots.withLock({ $0.removeValue(forKey: tag) }) else { return }
        slot.answer = answer
        slot.done.signal()
    }

    /// Sends one request and waits for its answer (libcurl's own timeout ends a request that
    /// takes longer; a backstop two seconds later gives up on it).
    func send(_ method: String, _ url: String, headers: [String], body: [UInt8]? = nil) -> Answer {
        let tag = nextTag.wrappingAdd(1, ordering: .relaxed).oldValue
        let slot = Slot()
        slots.withLock { $0[tag] = slot }
        let cHeaders = headers.map { strdup($0) }
        defer { cHeaders.forEach { free($0) } }
        let status = cHeaders.map { UnsafePointer($0) }.withUnsafeBufferPointer { hs in
            (body ?? []).withUnsafeBufferPointer { b in
                tp_http_submit(handle, tag, method, url, hs.baseAddress, hs.count, b.baseAddress, b.count)
            }
        }
        guard status == 0 else {
            _ = slots.withLock { $0.removeValue(forKey: tag) }
            return .failed(.transport(code: -1))
        }
        if slot.done.wait(timeout: .now() + timeout + 2) == .timedOut {
            _ = slots.withLock { $0.removeValue(forKey: tag) }
            return .failed(.timeout)
        }
        return slot.answer
    }
}
