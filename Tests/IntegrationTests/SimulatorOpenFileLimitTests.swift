import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// `wearable-sim publish` opens four descriptors per device: under a shell's usual soft limit it
/// raises the limit itself, and when the hard limit is too low it says so, naming `--devices`.
@Suite("wearable-sim publish and the open-file limit")
struct SimulatorOpenFileLimitTests {
    /// `wearable-sim publish` with 100 devices for a second, under `prlimit --nofile=<limits>`.
    static func publish(_ broker: TestBroker, nofile limits: String) throws -> SimulatorProcess {
        try SimulatorProcess(
            [
                "--nofile=\(limits)", SimulatorProcess.executable.path,
                "publish", "--broker", broker.url, "--devices", "100", "--duration", "1", "--log-level", "warning",
            ],
            directory: broker.directory, executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
    }

    @Test("100 devices under a soft limit of 256 open files (about 470 needed): every device connects and says hello")
    func raisesTheSoftLimit() async throws {
        let broker = try await TestBroker.started()
        let (observer, hellos) = try await TestClients.observer(broker, subscribedTo: ["wearables/+/hello"])
        let publisher = try Self.publish(broker, nofile: "256:")
        #expect(try await publisher.waitForExit(timeout: 60) == 0, "\(publisher.errorLog.suffix(2000))")
        #expect(!publisher.errorLog.contains("Too many open files"))
        try await hellos.wait(timeout: 20, "a hello from each of the 100 devices") { Set($0.map(\.topic)).count == 100 }
        await observer.shutdown()
    }

    @Test("a hard limit of 256 open files: exit 64 with a message naming --devices, no connection attempted")
    func namesDevicesWhenTheHardLimitIsTooLow() async throws {
        let broker = try await TestBroker.started()
        let publisher = try Self.publish(broker, nofile: "256:256")
        #expect(try await publisher.waitForExit(timeout: 60) == 64)
        #expect(publisher.errorLog.contains("--devices: 100 device connections need about"), "\(publisher.errorLog.suffix(2000))")
        #expect(publisher.errorLog.contains("at most 256 (the hard limit"))
        #expect(!publisher.errorLog.contains("Too many open files"))
    }
}
