import Foundation

/// Reads the file at `url` every 10 ms until `predicate` holds for its text, `timeout` seconds
/// pass, or `running` turns false (its writer ended): a child's log gives no other signal.
/// - Returns: whether `predicate` held.
public func poll(_ url: URL, timeout: Double, while running: () -> Bool = { true }, until predicate: (String) -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    func holds() -> Bool { predicate((try? String(contentsOf: url, encoding: .utf8)) ?? "") }
    while !holds() {
        // Read once more after the writer ended: it may have written just before.
        guard ContinuousClock.now < deadline, running() else { return holds() }
        do { try await Task.sleep(for: .milliseconds(10)) } catch { return holds() }
    }
    return true
}
