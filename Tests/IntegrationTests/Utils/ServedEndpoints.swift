import BrokerTestSupport
import Foundation
import Logging
import ServiceLifecycle

@testable import TelemetryGateway

/// Runs the real HTTP service (Hummingbird) over `endpoints` on a free loopback port until
/// `body`, given the server's base URL once it answers, returns; then stops it gracefully.
func serving<T>(_ endpoints: HTTPEndpoints, label: String, _ body: (URL) async throws -> T) async throws -> T {
    let port = try TestBroker.freePort()
    let logger = Logger(label: label)
    let group = ServiceGroup(
        services: [HTTPService(address: HTTPListenAddress(host: "127.0.0.1", port: port), endpoints: endpoints, logger: logger)], logger: logger)
    let server = Task { try await group.run() }
    defer { server.cancel() }
    let base = URL(string: "http://127.0.0.1:\(port)")!
    try await waitForListener(base.appendingPathComponent("metrics"), timeout: 20)
    let result = try await body(base)
    await group.triggerGracefulShutdown()
    try await server.value
    return result
}

/// Polls `url` until it answers at all; fails after `timeout` seconds.
func waitForListener(_ url: URL, timeout: Double) async throws {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while ContinuousClock.now < deadline {
        if await HTTPAnswer.get(url) != nil { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    throw TestFailure("nothing answered on \(url) within \(timeout) s")
}
