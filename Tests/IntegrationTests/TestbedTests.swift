import BrokerTestSupport
import Foundation
import FoundationNetworking
import MQTTTransport
import TelemetryCore
import Testing

/// `wearable-sim testbed` as a test in another language uses it: the first line names the
/// broker, a hello there gets an availability, and the end of stdin (or SIGTERM) stops it and
/// its broker.
@Suite("wearable-sim testbed")
struct TestbedTests {
    /// `copied`: a copy of the executable run from a temporary directory with `WG_REPO_ROOT`
    /// pointing there too, as on a machine without the checkout: the kit's capability table is
    /// built in (a kit that read the repository's `config/` could not start the gateway).
    @Test("prints the broker first, answers a hello with availability, stops with its broker", arguments: ["stdin", "SIGTERM", "copied"])
    func testbed(stop: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-testbed-test-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var executable = SimulatorProcess.executable
        if stop == "copied" {
            executable = directory.appendingPathComponent("wearable-sim")
            try FileManager.default.copyItem(at: SimulatorProcess.executable, to: executable)
        }
        let testbed = try SimulatorProcess(
            ["testbed"], directory: directory, environment: stop == "copied" ? ["WG_REPO_ROOT": directory.path] : [:], executable: executable,
            workingDirectory: stop == "copied" ? directory : nil)
        _ = try await testbed.waitForLine(startingWith: "ready", timeout: 60)
        let first = try #require(testbed.output.first)
        #expect(first.hasPrefix("broker=mqtt://127.0.0.1:"), "\(testbed.output)")
        let url = String(first.dropFirst("broker=".count))
        let port = try #require(Int(url.split(separator: ":").last ?? ""))

        var configuration = MQTTClientConfiguration(broker: try BrokerURL(parsing: url), clientID: "testbed-test-\(UUID().uuidString.prefix(6))")
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.5)
        let (client, collector) = try await TestClients.observer(configuration, subscribedTo: ["gateway/tb-watch-1/availability"])
        let hello = DeviceDescriptor(
            model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.testbed", authorization: .authorized,
            wristLocation: .left, crownOrientation: .right)
        try await client.publish(MQTTMessage(topic: "wearables/tb-watch-1/hello", payload: FrameEncoder.encode(hello), retain: true))
        let received = try await collector.wait("the availability of tb-watch-1") { !$0.isEmpty }
        #expect(received.first?.jsonObject?["deviceId"] as? String == "tb-watch-1")
        await client.shutdown()

        if stop == "SIGTERM" { testbed.signal(SIGTERM) } else { testbed.closeInput() }
        try await testbed.waitForSuccess(timeout: 30)
        #expect(!TestBroker.canConnect(port: port), "the testbed's broker is gone")
        // Its broker directory (configuration, log, recorder store) is gone too.
        let temporary = FileManager.default.temporaryDirectory
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path).filter { name in
            guard name.hasPrefix("wg-broker-") else { return false }
            let configuration = try? String(contentsOf: temporary.appendingPathComponent("\(name)/mosquitto.conf"), encoding: .utf8)
            return configuration?.contains("listener \(port) ") == true
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("--http serves the gateway's endpoints on the printed address; --set changes a key, and a bad key stops it naming the key")
    func httpAndSettings() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wg-testbed-test-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let testbed = try SimulatorProcess(["testbed", "--http", "--set", "pipeline.errorReportInterval=7"], directory: directory)
        _ = try await testbed.waitForLine(startingWith: "ready", timeout: 60)
        let line = try #require(testbed.output.first { $0.hasPrefix("http=") }, "\(testbed.output)")
        let base = try #require(URL(string: String(line.dropFirst("http=".count))))
        let (data, response) = try await URLSession.shared.data(from: base.appendingPathComponent("metrics"))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self).contains("gateway_messages_received_total"))
        testbed.closeInput()
        try await testbed.waitForSuccess(timeout: 30)

        let refused = try SimulatorProcess(["testbed", "--set", "pipeline.errorReportIntervall=7"], directory: directory)
        #expect(try await refused.waitForExit(timeout: 30) != 0)
        #expect(refused.errorLog.contains("pipeline.errorReportIntervall"), "stderr:\n\(refused.errorLog)")
    }
}
