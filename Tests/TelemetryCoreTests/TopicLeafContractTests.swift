import Foundation
import Testing

@testable import TelemetryCore

/// Each outbound topic's QoS and retain flag as the code publishes it (``TopicScheme/Leaf``,
/// ``TopicScheme/GatewayTopic``) against the table of outbound topics in docs/wire-contract.md,
/// read from the document itself, and each leaf's event family.
@Suite struct TopicLeafContractTests {
    /// One row of the wire contract's outbound table.
    struct Row {
        var retained: Bool
        /// nil for `any` (a command the gateway listens on).
        var qos: MQTTQoS?
    }

    /// The outbound table of docs/wire-contract.md (`| topic | retained | QoS | …`), by topic
    /// (a row naming several topics gives one entry each).
    static func contractTable() throws -> [String: Row] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/wire-contract.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let header = try #require(lines.firstIndex { $0.hasPrefix("| topic | retained | QoS |") }, "the outbound table's header")
        var rows: [String: Row] = [:]
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            let retainedWord = cells[1].prefix { $0 != " " }
            try #require(retainedWord == "yes" || retainedWord == "no", "retained cell '\(cells[1])'")
            var qos: MQTTQoS?
            if cells[2] != "any" {
                let level: MQTTQoS = try #require(Int(cells[2]).flatMap(MQTTQoS.init(rawValue:)), "QoS cell '\(cells[2])'")
                qos = level
            }
            let retained = retainedWord == "yes"
            for topic in cells[0].split(separator: ",") {
                rows[topic.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Row(retained: retained, qos: qos)
            }
        }
        return rows
    }

    @Test("the table is read: it has the rows this suite relies on")
    func tableIsRead() throws {
        let table = try Self.contractTable()
        #expect(table.count >= TopicScheme.Leaf.allCases.count + 4)
        #expect(table["gateway/{id}/headphone/pose"]?.qos == .atMostOnce)
        #expect(table["gateway/{id}/connection"]?.retained == true)
    }

    @Test("every leaf is published with the QoS and retain flag of its row", arguments: TopicScheme.Leaf.allCases)
    func leafMatchesContract(_ leaf: TopicScheme.Leaf) throws {
        let table = try Self.contractTable()
        // Recorder queries are addressed per requester below the leaf.
        let topic = "gateway/{id}/" + leaf.rawValue + (leaf == .recorderQuery ? "/{requester}" : "")
        let row = try #require(table[topic], "\(topic) has no row in the wire contract's outbound table")
        #expect(leaf.retain == row.retained)
        if let qos = row.qos { #expect(leaf.qos == qos) }
    }

    @Test("the gateway's own topics are published with the QoS and retain flag of their rows", arguments: [
        (TopicScheme.GatewayTopic.status, "gateway/status"),
        (.errors, "gateway/errors"),
        (.metrics, "gateway/metrics"),
        (.probe, "gateway/probe"),
        (.deadLetter, "gateway/dead-letter"),
    ])
    func gatewayTopicMatchesContract(_ topic: TopicScheme.GatewayTopic, _ documented: String) throws {
        let row = try #require(try Self.contractTable()[documented])
        #expect(TopicScheme().topic(topic) == documented)
        #expect(topic.retain == row.retained)
        #expect(topic.qos == row.qos)
    }

    @Test("the clustered modes' topics and answers: retained announcements, plain answers, QoS 1")
    func clusterTopics() throws {
        // Not in the table: docs/wire-contract.md and docs/scale-out.md describe the instances'
        // announcements as retained; recorder answers are QoS 1, not retained.
        let retained: [TopicScheme.GatewayTopic] = [.instance("a"), .instanceMetrics("a")]
        for topic in retained { #expect(topic.retain && topic.qos == .atLeastOnce, "\(topic)") }
        let answer = TopicScheme.GatewayTopic.response("replies/app-1/q")
        #expect(!answer.retain && answer.qos == .atLeastOnce)
    }

    @Test("each leaf counts under its family (the latency label and the fleet page's kinds)")
    func families() {
        // Mirrors the family list of gateway_event_latency_seconds in docs/operations.md.
        let expected: [TopicScheme.Leaf: EventFamily] = [
            .connection: .connection, .errors: .errors, .availability: .availability,
            .headphoneConnection: .headphoneConnection, .headphoneSensorLocation: .headphone, .headphonePose: .headphonePose,
            .headphonePosture: .headphone, .headphoneGesture: .headphone, .headphoneResetPose: .headphone,
            .submersionDepthState: .depthState, .submersionDive: .submersion, .submersionTemperature: .submersion,
            .submersionAscentWarning: .submersion, .submersionSafetyStop: .submersion,
            .swing: .swing, .tennisStroke: .tennisStroke, .pedometerSegment: .runSegment, .pedometerWorkout: .runSegment,
            .tremor: .tremor, .recorderQuery: .other, .deadLetter: .deadLetter,
        ]
        #expect(Set(expected.keys) == Set(TopicScheme.Leaf.allCases))
        for leaf in TopicScheme.Leaf.allCases { #expect(leaf.family == expected[leaf], "\(leaf)") }
        #expect(Set(TopicScheme.Leaf.allCases.map(\.family)) == Set(EventFamily.allCases), "every family has a leaf")
    }

    @Test("a device message takes its topic, QoS, retain flag, device and leaf from the leaf", arguments: TopicScheme.Leaf.allCases)
    func deviceMessage(_ leaf: TopicScheme.Leaf) throws {
        let device = try #require(DeviceID("w-1"))
        let scheme = TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out")
        let message = OutboundMessage(leaf, of: device, in: scheme, payload: [1])
        #expect(message.topic == "acme/out/w-1/" + leaf.rawValue)
        #expect(message.qos == leaf.qos && message.retain == leaf.retain)
        #expect(message.device == device && message.leaf == leaf)
        #expect(message.contentType == "application/json")
    }

    @Test("a gateway message names no device and no leaf")
    func gatewayMessage() {
        let message = OutboundMessage(.errors, in: TopicScheme(), payload: [1])
        #expect(message.topic == "gateway/errors" && message.qos == .atLeastOnce && !message.retain)
        #expect(message.device == nil && message.leaf == nil)
    }

    @Test("a snapshot's outputs keep their device and leaf; older ones without them still decode")
    func codable() throws {
        let message = OutboundMessage(.submersionDepthState, of: try #require(DeviceID("w-1")), in: TopicScheme(), payload: [1])
        let decoded = try JSONDecoder().decode(OutboundMessage.self, from: try JSONEncoder().encode(message))
        #expect(decoded == message)
        let old = #"{"topic":"gateway/w-1/swing","payload":[1],"qos":1,"retain":false,"userProperties":[]}"#
        let legacy = try JSONDecoder().decode(OutboundMessage.self, from: Data(old.utf8))
        #expect(legacy.qos == .atLeastOnce && legacy.device == nil && legacy.leaf == nil)
    }
}
