import ArgumentParser
import Foundation
import TelemetryCore

/// `wearable-sim contract-check`: the gateway's verdict on payloads, for tests that compare it
/// with the schemas in `contract/` (Examples/pytest/test_contract.py).
struct ContractCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contract-check",
        abstract: "Read {\"stream\",\"payload\"} lines on stdin and print the gateway's verdict on each payload.",
        discussion: """
            Each payload (JSON text) goes through a fresh frame processor with the default settings, as a frame on \
            wearables/contract-check/<stream>: size limit, decoding and validation, the checks that reject a payload as \
            invalidPayload (no registry, so no access checks). One line out per line in: {"accepted": true} or \
            {"accepted": false, "reason": <PayloadProblem reason>, "detail": <the error report's detail>}.
            """)

    /// One line of input.
    private struct Query: Decodable {
        var stream: String
        var payload: String
    }

    /// One line of output.
    private struct Verdict: Encodable {
        var accepted: Bool
        var reason: String?
        var detail: String?
    }

    func run() throws {
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let scheme = TopicScheme()
        while let line = readLine(strippingNewline: true) {
            guard !line.isEmpty else { continue }
            let query = try decoder.decode(Query.self, from: Data(line.utf8))
            var processor = FrameProcessor()
            let frame = InboundFrame(topic: scheme.inboundTopic(rawDevice: "contract-check", path: query.stream), payload: Array(query.payload.utf8), receivedAt: 1_767_225_600)
            let result = processor.process(frame)
            let verdict: Verdict
            switch result.outcome {
            case .accepted, .alreadyApplied:
                verdict = Verdict(accepted: true)
            case .rejected(let code, _):
                verdict = Verdict(accepted: false, reason: result.problem?.reason.rawValue ?? code.rawValue, detail: result.problem?.detail)
            }
            print(String(decoding: try encoder.encode(verdict), as: UTF8.self))
        }
    }
}
