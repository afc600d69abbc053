import Testing
import TelemetryCore

@Suite("Enum raw values and case names")
struct WireEnumerationTests {
    @Test("raw values match Core Motion's headers")
    func rawValues() {
        #expect(CalibrationAccuracy.allCases.map(\.rawValue) == [-1, 0, 1, 2])
        #expect(SensorLocation.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(AuthorizationStatus.allCases.map(\.rawValue) == [0, 1, 2, 3])
        #expect(WaterSubmersionState.allCases.map(\.rawValue) == [0, 1, 2])
        #expect(DepthState.allCases.map(\.rawValue) == [0, 100, 200, 300, 400, 500, 600])
        #expect(PedometerEventType.allCases.map(\.rawValue) == [0, 1])
        #expect(CMErrorCode.allCases.map(\.rawValue) == Array(100...113))
        #expect(WorkoutState.running.rawValue == 2 && WorkoutState.ended.rawValue == 3 && WorkoutState.paused.rawValue == 4)
        #expect(WristLocation.right.rawValue == 1 && CrownOrientation.left.rawValue == 0)
        #expect(DepthState(rawValue: 300) == .submergedDeep)
        #expect(DepthState(rawValue: 3) == nil)
        #expect(CalibrationAccuracy(rawValue: -1) == .uncalibrated)
    }

    @Test("case names are Core Motion's")
    func names() {
        #expect(SensorLocation.allCases.map(\.name) == ["default", "headphoneLeft", "headphoneRight"])
        #expect(
            DepthState.allCases.map(\.name) == [
                "unknown", "notSubmerged", "submergedShallow", "submergedDeep", "approachingMaxDepth", "pastMaxDepth",
                "sensorDepthError",
            ]
        )
        #expect(CalibrationAccuracy.allCases.map(\.name) == ["uncalibrated", "low", "medium", "high"])
        #expect(AuthorizationStatus.allCases.map(\.name) == ["notDetermined", "restricted", "denied", "authorized"])
        #expect(WaterSubmersionState.allCases.map(\.name) == ["unknown", "notSubmerged", "submerged"])
        #expect(PedometerEventType.allCases.map(\.name) == ["pause", "resume"])
        #expect(WorkoutState.allCases.map(\.name).sorted() == ["ended", "paused", "running"])
        #expect(DeviceStatus.State.allCases.map(\.name) == ["online", "offline"])
        #expect(HeadphoneConnectionEvent.Kind.allCases.map(\.name) == ["connected", "disconnected"])
        #expect(CMErrorCode.notEntitled.name == "notEntitled")
        #expect(CMErrorCode.notEntitled.constantName == "CMErrorNotEntitled")
        #expect(CMErrorCode.null.constantName == "CMErrorNULL")
        #expect(CMErrorCode.invalidParameter.constantName == "CMErrorInvalidParameter")
    }

    @Test("init(wireValue:) parses every name and rejects others")
    func parseNames() {
        func roundTrips<E: WireEnumeration>(_: E.Type) -> Bool {
            E.allCases.allSatisfy { E(wireValue: $0.name) == $0 }
        }
        #expect(roundTrips(CalibrationAccuracy.self))
        #expect(roundTrips(SensorLocation.self))
        #expect(roundTrips(AuthorizationStatus.self))
        #expect(roundTrips(WaterSubmersionState.self))
        #expect(roundTrips(DepthState.self))
        #expect(roundTrips(PedometerEventType.self))
        #expect(roundTrips(WorkoutState.self))
        #expect(roundTrips(WristLocation.self))
        #expect(roundTrips(CrownOrientation.self))
        #expect(roundTrips(CMErrorCode.self))
        #expect(roundTrips(DeviceStatus.State.self))
        #expect(roundTrips(HeadphoneConnectionEvent.Kind.self))
        #expect(DepthState(wireValue: "submergedDeep") == .submergedDeep)
        #expect(DepthState(wireValue: "SubmergedDeep") == nil)
        #expect(DepthState(wireValue: "300") == nil)
        #expect(SensorLocation(wireValue: "") == nil)
        #expect(AuthorizationStatus(wireValue: "authorised") == nil)
    }
}
