import Foundation
import Testing
import WearableGatewayTesting

@Suite("The capability table built into the kit")
struct ShippedCapabilitiesTests {
    @Test("is config/capabilities.yml byte for byte")
    func matchesTheShippedFile() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shipped = try String(contentsOf: root.appendingPathComponent("config/capabilities.yml"), encoding: .utf8)
        #expect(ShippedCapabilities.yaml == shipped, "config/capabilities.yml changed: copy it into Sources/WearableGatewayTesting/ShippedCapabilities.swift")
    }
}
