import Dispatch
import Foundation
import TexPipe

nonisolated(unsafe) private var signalSources: [any DispatchSourceSignal] = []

/// SIGINT and SIGTERM: no rename after this, every temporary file in flight removed, then
/// `stopped` says its last words and returns the exit status for the signal (run: 130 / 143;
/// watch: 0).
func onInterrupt(_ stopped: @escaping @Sendable (_ signal: Int32) -> Int32) {
    for sig in [SIGINT, SIGTERM] {
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            AtomicWriter.stopAndCleanUp()
            exit(stopped(sig))
        }
        source.resume()
        signalSources.append(source)
    }
}
