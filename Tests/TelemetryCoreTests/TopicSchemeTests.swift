import Testing
import TelemetrySimulation

@testable import TelemetryCore

@Suite struct TopicSchemeTests {
    private static let longID = String(repeating: "a", count: 65)

    @Test("parses good topics below the default root", arguments: [
        ("wearables/watch-1/status", "watch-1", InboundStream.status),
        ("wearables/w/batched/device-motion", "w", .batchedDeviceMotion),
        ("wearables/A.b_c-9/recorder/accelerometer", "A.b_c-9", .recorderAccelerometer),
        ("wearables/\(String(repeating: "z", count: 64))/hello", String(repeating: "z", count: 64), .hello),
    ])
    func parsesGoodTopics(_ topic: String, _ id: String, _ stream: InboundStream) throws {
        #expect(TopicScheme().parseInbound(topic) == .device(try #require(DeviceID(id)), stream))
    }

    @Test("parses every contract stream", arguments: InboundStream.allCases)
    func parsesEveryStream(_ stream: InboundStream) throws {
        let id = try #require(DeviceID("watch-1"))
        let scheme = TopicScheme()
        #expect(scheme.parseInbound("wearables/watch-1/" + stream.rawValue) == .device(id, stream))
        #expect(scheme.inboundTopic(id, stream) == "wearables/watch-1/" + stream.rawValue)
    }

    @Test("rejects bad topics with the right code and detail", arguments: [
        ("wearables/w1/status/extra", GatewayErrorCode.unknownStream, "unknown stream 'status/extra'; it is not in the wire contract"),
        ("wearables/w1/Status", .unknownStream, "unknown stream 'Status'; it is not in the wire contract"),
        ("wearables/w1/batched", .unknownStream, "unknown stream 'batched'; it is not in the wire contract"),
        ("wearables/w1/gyro", .unknownStream, "unknown stream 'gyro'; it is not in the wire contract"),
        ("wearables/w1//status", .unknownStream, "unknown stream '/status'; it is not in the wire contract"),
        ("wearables/w1/+", .unknownStream, "unknown stream '+'; it is not in the wire contract"),
        ("wearables/w1", .unknownStream, "topic has no stream below the device id"),
        ("wearables/w1/", .unknownStream, "topic has an empty stream path below the device id"),
        ("wearables//status", .invalidDeviceId, "device id is empty"),
        ("wearables/", .invalidDeviceId, "device id is empty"),
        ("wearables/+/status", .invalidDeviceId, "device id contains '+' at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        ("wearables/#", .invalidDeviceId, "device id contains '#' at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        ("wearables/ab#/status", .invalidDeviceId, "device id contains '#' at position 3; only A-Z a-z 0-9 . _ - are allowed"),
        ("wearables/\(longID)/status", .invalidDeviceId, "device id has 65 characters; at most 64 are allowed"),
        ("wearables/w\u{E4}tch/status", .invalidDeviceId, "device id contains '\u{E4}' (U+00E4) at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        ("wearables/a\u{0}/status", .invalidDeviceId, "device id contains U+0000 at position 2; only A-Z a-z 0-9 . _ - are allowed"),
        // A combining mark right after '/' must stay in the id level, not merge into the slash.
        ("wearables/\u{301}w/status", .invalidDeviceId, "device id contains '\u{301}' (U+0301) at position 1; only A-Z a-z 0-9 . _ - are allowed"),
        ("wearables", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
        ("wearables2/w1/status", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
        ("Wearables/w1/status", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
        ("/wearables/w1/status", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
        ("gateway/w1/connection", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
        ("", .invalidTopic, "topic is not below the inbound root 'wearables/'"),
    ])
    func rejectsBadTopics(_ topic: String, _ code: GatewayErrorCode, _ detail: String) throws {
        let parsed = TopicScheme().parseInbound(topic)
        guard case .invalid(let rejection) = parsed else {
            Issue.record("expected a rejection of \(topic.debugDescription), got \(parsed)")
            return
        }
        #expect(rejection.code == code)
        #expect(Array(rejection.detail.unicodeScalars) == Array(detail.unicodeScalars))
    }

    /// `parseInbound` accepts from the topic's bytes in one pass and hands everything else to the
    /// level-by-level checks; both must give the same answer for every topic, right or wrong.
    @Test("the one-pass acceptance agrees with the level-by-level checks on mutated topics", arguments: ["wearables", "acme/wearables", "caf\u{E9}"])
    func onePassAgreesWithChecks(_ root: String) {
        let scheme = TopicScheme(inboundRoot: root, outboundRoot: "out")
        // Bytes that matter to the parse: allowed id characters, the separator, wildcards, NUL,
        // a combining mark and a precomposed letter.
        let alphabet: [String] = ["a", "Z", "7", ".", "_", "-", "/", "+", "#", "\u{0}", "\u{301}", "\u{E4}", "e"]
        var random = SplitMix64(seed: 26)
        var accepted = 0
        for _ in 0..<4_000 {
            let stream = InboundStream.allCases.randomElement(using: &random)!
            let idLength = [1, 8, 63, 64, 65].randomElement(using: &random)!
            var characters = Array(scheme.inboundTopic(rawDevice: String(repeating: "w", count: idLength), path: stream.rawValue))
            for _ in 0..<Int.random(in: 0...2, using: &random) where !characters.isEmpty {
                let at = Int.random(in: 0..<characters.count, using: &random)
                let character = Character(alphabet.randomElement(using: &random)!)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: characters[at] = character
                case 1: characters.insert(character, at: at)
                default: characters.remove(at: at)
                }
            }
            let topic = String(characters)
            let parsed = scheme.parseInbound(topic)
            #expect(parsed == scheme.checkInbound(topic), "\(topic.debugDescription)")
            if case .device = parsed { accepted += 1 }
        }
        // Both kinds are exercised: unmutated topics with ids up to 64 bytes parse, others do not.
        #expect(accepted > 1_000 && accepted < 3_800, "accepted \(accepted) of 4000")
    }

    @Test("bounds a huge unknown stream path in the detail")
    func boundsLongStreamPath() throws {
        let path = String(repeating: "x", count: 10_000)
        guard case .invalid(let rejection) = TopicScheme().parseInbound("wearables/w1/" + path) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.code == .unknownStream)
        #expect(rejection.detail == "unknown stream '\(String(repeating: "x", count: 128))…'; it is not in the wire contract")
    }

    @Test("supports multi-level roots", arguments: [
        ("acme/wearables/w1/motion", InboundTopic.device(DeviceID("w1")!, .motion)),
        ("acme/wearables/w1/pedometer/event", .device(DeviceID("w1")!, .pedometerEvent)),
        ("acme/wearables/w1", .invalid(TopicRejection(code: .unknownStream, detail: "topic has no stream below the device id"))),
        ("acme/wearables/+/motion", .invalid(TopicRejection(code: .invalidDeviceId, detail: "device id contains '+' at position 1; only A-Z a-z 0-9 . _ - are allowed"))),
        ("acme/w1/motion", .invalid(TopicRejection(code: .invalidTopic, detail: "topic is not below the inbound root 'acme/wearables/'"))),
        ("wearables/w1/motion", .invalid(TopicRejection(code: .invalidTopic, detail: "topic is not below the inbound root 'acme/wearables/'"))),
        ("acme/wearablesX/w1/motion", .invalid(TopicRejection(code: .invalidTopic, detail: "topic is not below the inbound root 'acme/wearables/'"))),
    ])
    func multiLevelRoots(_ topic: String, _ expected: InboundTopic) {
        let scheme = TopicScheme(inboundRoot: "acme/wearables", outboundRoot: "acme/gateway")
        #expect(scheme.parseInbound(topic) == expected)
        #expect(scheme.inboundFilter == "acme/wearables/+/#")
    }

    @Test("compares the root byte for byte, not by Unicode equivalence")
    func rootIsComparedByBytes() {
        let scheme = TopicScheme(inboundRoot: "caf\u{E9}")
        #expect(scheme.parseInbound("caf\u{E9}/w1/status") == .device(DeviceID("w1")!, .status))
        guard case .invalid(let rejection) = scheme.parseInbound("cafe\u{301}/w1/status") else {
            Issue.record("a decomposed root must not match a precomposed one")
            return
        }
        #expect(rejection.code == .invalidTopic)
    }

    @Test("routing key is the raw id level", arguments: [
        ("wearables/watch-1/status", "wearables", "watch-1" as String?),
        ("wearables/watch-1", "wearables", "watch-1"),
        ("wearables/a+b/x/y", "wearables", "a+b"),
        ("wearables//status", "wearables", ""),
        ("wearables/", "wearables", ""),
        ("wearables/\u{301}w/status", "wearables", "\u{301}w"),
        ("acme/wearables/w/motion", "acme/wearables", "w"),
        ("wearables", "wearables", nil),
        ("wearablesX/w/status", "wearables", nil),
        ("other/w/status", "wearables", nil),
        ("", "wearables", nil),
    ])
    func routingKey(_ topic: String, _ root: String, _ expected: String?) {
        let key = TopicScheme.routingKey(of: topic, inboundRoot: root)
        #expect(key.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
    }

    @Test("validates roots", arguments: [
        ("wearables", nil as String?),
        ("acme/wearables", nil),
        ("a/b/c", nil),
        ("caf\u{E9}", nil),
        ("", "topic root is empty"),
        ("wear+ables", "topic root 'wear+ables' contains the wildcard '+' at position 5"),
        ("acme/#", "topic root 'acme/#' contains the wildcard '#' at position 6"),
        ("a\u{0}b", "topic root contains NUL at position 2"),
        ("/wearables", "topic root '/wearables' starts with '/'"),
        ("wearables/", "topic root 'wearables/' ends with '/'"),
        ("/", "topic root '/' starts with '/'"),
        ("acme//wearables", "topic root 'acme//wearables' has an empty level ('//')"),
        ("$SYS", "topic root '$SYS' starts with '$', which MQTT reserves for broker topics"),
    ])
    func validatesRoots(_ root: String, _ problem: String?) {
        #expect(TopicScheme.validateRoot(root) == problem)
    }

    @Test("reports bad or overlapping roots in the configuration", arguments: [
        ("wearables", "gateway", nil as String?),
        ("acme/wearables", "acme/gateway", nil),
        ("ab", "a", nil),
        ("gateway", "gateway", "inbound root 'gateway' and outbound root 'gateway' overlap; the gateway would receive its own messages"),
        ("a", "a/b", "inbound root 'a' and outbound root 'a/b' overlap; the gateway would receive its own messages"),
        ("a/b", "a", "inbound root 'a/b' and outbound root 'a' overlap; the gateway would receive its own messages"),
        ("", "gateway", "inbound root: topic root is empty"),
        ("wearables", "gw/", "outbound root: topic root 'gw/' ends with '/'"),
    ])
    func configurationProblem(_ inbound: String, _ outbound: String, _ problem: String?) {
        #expect(TopicScheme(inboundRoot: inbound, outboundRoot: outbound).configurationProblem == problem)
    }

    @Test("builds outbound topics below the outbound root")
    func outboundTopics() throws {
        let id = try #require(DeviceID("watch-1"))
        let scheme = TopicScheme()
        #expect(scheme.inboundFilter == "wearables/+/#")
        #expect(scheme.statusTopic == "gateway/status")
        #expect(scheme.errorsTopic == "gateway/errors")
        #expect(scheme.metricsTopic == "gateway/metrics")
        #expect(scheme.deviceTopic(id, .submersionDepthState) == "gateway/watch-1/submersion/depth-state")
        #expect(scheme.deviceFilter(.recorderQuery) == "gateway/+/recorder/query")
        // Every leaf is a non-empty path of levels without wildcards, spelled once.
        let leaves = TopicScheme.Leaf.allCases.map(\.rawValue)
        #expect(Set(leaves).count == leaves.count)
        #expect(leaves.allSatisfy { !$0.isEmpty && !$0.contains("+") && !$0.contains("#") && !$0.hasPrefix("/") && !$0.hasSuffix("/") })
        #expect(scheme.connectionTopic(id) == "gateway/watch-1/connection")
        #expect(scheme.deviceErrorsTopic(id) == "gateway/watch-1/errors")
        #expect(scheme.availabilityTopic(id) == "gateway/watch-1/availability")

        let custom = TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out")
        #expect(custom.statusTopic == "acme/out/status")
        #expect(custom.connectionTopic(id) == "acme/out/watch-1/connection")
        #expect(custom.inboundTopic(id, .status) == "acme/in/watch-1/status")
    }
}
