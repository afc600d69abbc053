/// Runs `operation`, and if it has not finished after `seconds`, calls `onTimeout` (which
/// must make the operation finish, e.g. by failing its continuation) and throws `.timeout`.
func withDeadline(
    seconds: Double,
    what: String,
    _ operation: @escaping @Sendable () async throws -> Void,
    onTimeout: @escaping @Sendable () -> Void
) async throws {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await operation()
            return true
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return false
        }
        let first = try await group.next() ?? false
        if first {
            group.cancelAll()
            return
        }
        onTimeout()
        group.cancelAll()
        _ = try? await group.next()
        throw MQTTTransportError(.timeout, "\(what) took longer than \(seconds) s")
    }
}
