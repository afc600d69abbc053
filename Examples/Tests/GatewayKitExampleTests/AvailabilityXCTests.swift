import Foundation
import MQTTTransport
import TelemetryCore
import WearableGatewayTesting
import XCTest

/// The kit from XCTest: its waits throw, with what did arrive, and XCTest records the error.
final class AvailabilityXCTests: XCTestCase {
    func testHelloGetsAvailability() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let hello = DeviceDescriptor(
            model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.coach", authorization: .authorized,
            wristLocation: .left, crownOrientation: .right)
        try await run.publish(
            MQTTMessage(topic: "wearables/xc-watch-1/hello", payload: FrameEncoder.encode(hello), retain: true))
        let availability = try await run.waitForEvents("availability", device: "xc-watch-1")
        XCTAssertEqual(availability.first?.jsonObject?["deviceId"] as? String, "xc-watch-1")
        try await run.stop()
    }
}
