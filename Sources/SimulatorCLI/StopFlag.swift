import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Set by SIGINT/SIGTERM so the publishing loop ends cleanly (devices marked offline).
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var sources: [any DispatchSourceSignal] = []

    var isSet: Bool { lock.withLock { stopped } }

    func installSignalHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber)
            source.setEventHandler { [self] in lock.withLock { stopped = true } }
            source.resume()
            sources.append(source)
        }
    }
}
