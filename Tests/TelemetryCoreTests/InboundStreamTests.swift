import Testing

@testable import TelemetryCore

@Suite struct InboundStreamTests {
    @Test("has the contract's 16 stream paths")
    func contractPaths() {
        let paths = InboundStream.allCases.map(\.rawValue)
        #expect(paths == [
            "hello", "status", "authorization", "workout", "headphone/connection", "headphone/motion", "motion",
            "batched/accelerometer", "batched/device-motion", "submersion/event", "submersion/measurement",
            "submersion/temperature", "pedometer/data", "pedometer/event", "altimeter", "recorder/accelerometer",
        ])
    }

    @Test("marks exactly batched/*, motion, headphone/motion and recorder/* as high rate")
    func highRate() {
        let highRate = Set(InboundStream.allCases.filter(\.isHighRate))
        #expect(highRate == [.batchedAccelerometer, .batchedDeviceMotion, .motion, .headphoneMotion, .recorderAccelerometer])
    }

    @Test("finds a stream by its exact path", arguments: InboundStream.allCases)
    func findsByPath(_ stream: InboundStream) {
        #expect(InboundStream(path: stream.rawValue) == stream)
        #expect(InboundStream(path: Substring("x/" + stream.rawValue).dropFirst(2)) == stream)
    }

    @Test("rejects paths that are not exactly a stream", arguments: [
        "", "Status", "status/", "/status", "status/extra", "batched", "batched/", "headphone", "motion ", "pedometer/Data",
    ])
    func rejectsOtherPaths(_ path: String) {
        #expect(InboundStream(path: path) == nil)
    }
}
