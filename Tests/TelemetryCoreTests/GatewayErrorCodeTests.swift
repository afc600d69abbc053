import Testing

@testable import TelemetryCore

@Suite struct GatewayErrorCodeTests {
    @Test("maps codes to CMError raw values", arguments: [
        (GatewayErrorCode.invalidPayload, 107 as Int?), (.unknownDevice, nil), (.notAvailable, 109), (.notAuthorized, 111),
        (.notEntitled, 110), (.noActiveWorkout, 108), (.invalidTopic, nil), (.invalidDeviceId, nil), (.unknownStream, nil),
    ])
    func cmErrors(_ code: GatewayErrorCode, _ cmError: Int?) {
        #expect(code.cmError == cmError)
    }

    @Test("uses the contract's code names on the wire")
    func rawValues() {
        #expect(GatewayErrorCode.allCases.map(\.rawValue) == [
            "invalidPayload", "unknownDevice", "notAvailable", "notAuthorized", "notEntitled", "noActiveWorkout",
            "invalidTopic", "invalidDeviceId", "unknownStream",
        ])
        #expect(GatewayErrorCode.allCases.filter(\.isTopicLevel) == [.invalidTopic, .invalidDeviceId, .unknownStream])
    }
}
