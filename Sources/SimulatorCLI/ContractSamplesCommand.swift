import ArgumentParser
import Foundation

/// `wearable-sim contract-samples`: writes the messages the code produces for the simulator's
/// scenarios, which Examples/pytest/test_contract.py validates against `contract/`.
struct ContractSamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "contract-samples",
        abstract: "Write every inbound frame kind and every outbound payload the simulator's scenarios produce to --out.",
        discussion: """
            The scenarios (a mixed fleet with the rule breakers and broken frames, the dive, headphone, run and tremor \
            scenarios) run through the gateway's pure frame processor on a simulated clock, with no broker; the recorder's \
            answers and tremor results come from the functions the gateway's runtime calls. <out>/samples.jsonl holds one \
            message a line: direction (inbound, outbound), topic, qos, retain, contentType, messageExpiryInterval, \
            userProperties and the payload as text; at most 4 per topic. The same build writes the same file.
            """)

    @Option(help: "Output directory (created if missing).")
    var out: String

    func run() throws {
        let run = try ContractSampleRun.make()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines = Data()
        for sample in run.samples {
            lines.append(try encoder.encode(sample))
            lines.append(UInt8(ascii: "\n"))
        }
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try lines.write(to: URL(fileURLWithPath: out).appendingPathComponent("samples.jsonl"))
        print("\(run.samples.count) samples in \(out)/samples.jsonl")
    }
}
