import Foundation
import Testing

@testable import TelemetryCore

@Suite("Recorder queries: parsing, limits and answers")
struct RecorderQueryParsingTests {
    private let device = DeviceID("watch-1")!

    /// The default limit: the default retention window, 36 h.
    static let retention = 129_600.0

    private func parse(_ text: String, maximumRange: Double = retention) -> Result<RecorderQuery, RecorderQueryError> {
        RecorderQuery.parse(Array(text.utf8), device: device, maximumRange: maximumRange)
    }

    @Test("a range of up to the retention window (36 h, not Core Motion's old 12 h) parses, with accelerometer as the default kind")
    func parsesRange() throws {
        #expect(try parse(#"{"from":1000,"to":44200}"#).get() == RecorderQuery(device: device, from: 1000, to: 44_200, kind: .accelerometer))
        #expect(try parse(#"{"from":1000,"to":109000}"#).get().to == 109_000, "30 h")
        #expect(try parse(#"{"from":1000,"to":130600}"#).get().to == 130_600, "exactly 36 h")
        #expect(try parse(#"{"to":2000.5,"from":1000.25,"kind":"tremor","extra":true}"#).get().kind == .tremor)
    }

    @Test(
        "bad requests fail with a code naming the problem",
        arguments: [
            (#"{"from":1000,"to":130601}"#, RecorderQueryError.Code.rangeTooLong),
            (#"{"from":2000,"to":1000}"#, .invalidRange),
            (#"{"from":-5,"to":1000}"#, .invalidRange),
            (#"{"from":1000}"#, .invalidRequest),
            (#"{"from":"a","to":1000}"#, .invalidRequest),
            (#"{"from":1000,"to":2000,"kind":"gyro"}"#, .invalidRequest),
            ("[1,2]", .invalidRequest),
            ("", .invalidRequest),
        ])
    func rejects(text: String, code: RecorderQueryError.Code) {
        guard case .failure(let error) = parse(text) else {
            Issue.record("\(text) was accepted")
            return
        }
        #expect(error.code == code)
        #expect(!error.detail.isEmpty)
    }

    @Test("a configured limit applies, in either direction of 12 h")
    func configuredLimit() {
        #expect(throws: RecorderQueryError.self) { try parse(#"{"from":0,"to":3601}"#, maximumRange: 3600).get() }
        #expect((try? parse(#"{"from":0,"to":3600}"#, maximumRange: 3600).get()) != nil, "the limit itself is allowed")
        #expect((try? parse(#"{"from":0,"to":100000}"#, maximumRange: 100_000).get()) != nil)
    }

    @Test("answers carry the query, chunk numbers and the final counts")
    func answers() throws {
        let query = RecorderQuery(device: device, from: 10, to: 20)
        let sample = StoredRecorderSample(
            identifier: 9, sample: RecordedAccelerometerSample(timestamp: 1.5, startDate: 11, acceleration: Vector3(x: 0.1, y: 0.2, z: 0.3)))
        let chunk = try JSONSerialization.jsonObject(with: Data(RecorderQueryResponse.samplesChunk(query, index: 3, samples: [sample]))) as? [String: Any]
        #expect(chunk?["chunk"] as? Int == 3)
        #expect(chunk?["final"] as? Bool == false)
        #expect(chunk?["deviceId"] as? String == "watch-1")
        let samples = chunk?["samples"] as? [[String: Any]]
        #expect(samples?.first?["identifier"] as? Int == 9)
        #expect((samples?.first?["acceleration"] as? [String: Double])?["z"] == 0.3)
        let final = try JSONSerialization.jsonObject(with: Data(RecorderQueryResponse.final(query, chunks: 4, count: 3001))) as? [String: Any]
        #expect(final?["final"] as? Bool == true)
        #expect(final?["chunks"] as? Int == 4)
        #expect(final?["count"] as? Int == 3001)
        let error = try JSONSerialization.jsonObject(
            with: Data(RecorderQueryResponse.error(device: device, RecorderQueryError(.rangeTooLong, detail: "too long")))) as? [String: Any]
        #expect((error?["error"] as? [String: String])?["code"] == "rangeTooLong")
        #expect(error?["final"] as? Bool == true)
    }

    @Test("the query topic parses back to its device and requester; other topics do not")
    func topics() {
        let scheme = TopicScheme()
        #expect(scheme.recorderQueryFilter == "gateway/+/recorder/query/#")
        #expect(scheme.recorderQueryTopic(device, requester: "app-1") == "gateway/watch-1/recorder/query/app-1")
        #expect(scheme.parseRecorderQuery("gateway/watch-1/recorder/query/app-1") == RecorderQueryAddress(device: device, requester: "app-1"))
        // Kept as written: RecorderReplyCheck rejects what is not one level.
        #expect(scheme.parseRecorderQuery("gateway/watch-1/recorder/query/a/b") == RecorderQueryAddress(device: device, requester: "a/b"))
        #expect(scheme.parseRecorderQuery("gateway/watch-1/recorder/query") == RecorderQueryAddress(device: device, requester: nil))
        #expect(scheme.parseRecorderQuery("gateway/watch-1/recorder/queryx/app-1") == nil)
        #expect(scheme.parseRecorderQuery("gateway/watch-1/recorder/answer") == nil)
        #expect(scheme.parseRecorderQuery("gateway/bad+id/recorder/query/app-1") == nil)
        #expect(scheme.parseRecorderQuery("wearables/watch-1/recorder/query/app-1") == nil)
    }
}
