import Foundation
import MQTTTransport
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The `cluster.*` keys and what the instance name changes (client ids, files, filters).
@Suite struct ClusterConfigurationKeysTests {
    private static func load(_ overrides: [(key: String, value: String)], environment: [String: String] = [:]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: environment, overrides: [("registry.file", "null")] + overrides).configuration
    }

    /// The shared store every clustered configuration needs.
    private static let postgres = [("store.backend", "postgres"), ("store.url", "postgres://gateway@127.0.0.1:5432/gateway")]

    @Test("defaults: a single gateway, named after the host, with no instance anywhere")
    func defaults() throws {
        let configuration = try Self.load([])
        #expect(configuration.cluster.mode == .single)
        #expect(configuration.cluster.instance == nil)
        #expect(GatewayConfiguration.Cluster.nameProblem(configuration.cluster.instanceName) == nil)
        #expect(configuration.subscriberConfiguration().clientID == "wearable-gateway-in")
        #expect(configuration.subscriberConfiguration().sessionExpiry == 3600 && !configuration.subscriberConfiguration().endsSessionAtStop)
        #expect(configuration.withInstancePaths().journal.path == "data/journal.bin")
        #expect(configuration.inboundFilters(TopicScheme()) == ["wearables/+/#", "gateway/+/headphone/reset-pose", "gateway/+/recorder/query/#"])
    }

    @Test("partitioned: the instance joins client ids and file names; the subscriber's session outlives the leases long enough for a stand-in to resume it, also after a broker cut (2.5 × lease time + the adoption window), and ends at a graceful stop")
    func partitioned() throws {
        let configuration = try Self.load(
            [("cluster.mode", "partitioned"), ("cluster.heartbeatInterval", "0.5"), ("cluster.leaseTime", "2")] + Self.postgres,
            environment: ["WG_CLUSTER_INSTANCE": "gw-b.2"])
        #expect(configuration.cluster.instanceName == "gw-b.2")
        #expect(configuration.subscriberConfiguration().clientID == "wearable-gateway-gw-b.2-in")
        let subscriber = configuration.subscriberConfiguration()
        #expect(subscriber.sessionExpiry == 6 && !subscriber.cleanStart && subscriber.endsSessionAtStop, "2.5 × lease 2 s + 2 heartbeats of 0.5 s, whole seconds")
        let named = configuration.withInstancePaths()
        #expect(named.journal.path == "data/journal-gw-b.2.bin")
        #expect(named.recorder.database == "data/recorder-gw-b.2.sqlite")
        #expect(configuration.cluster.heartbeatInterval == 0.5 && configuration.cluster.leaseTime == 2)
        // Only the discovery streams: the devices of held partitions come from PartitionSubscriptions.
        #expect(
            configuration.inboundFilters(TopicScheme()) == [
                "wearables/+/hello", "wearables/+/status", "gateway/+/headphone/reset-pose", "$share/wearable-gateway/gateway/+/recorder/query/#",
            ])
    }

    @Test("shared mode is refused under cluster.mode, saying it was removed and what to use")
    func sharedRemoved() throws {
        do {
            _ = try Self.load([("cluster.mode", "shared"), ("cluster.instance", "a")] + Self.postgres)
            Issue.record("shared mode was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == "cluster.mode" && $0.message.contains("shared was removed") && $0.message.contains("partitioned") }, "\(error)")
        }
    }

    @Test("with the shared PostgreSQL store one instance answers each recorder query: the query filter goes through the group")
    func sharedStoreQueries() throws {
        let configuration = try Self.load([
            ("cluster.mode", "partitioned"), ("cluster.group", "fleet-1"), ("cluster.instance", "a"),
            ("store.backend", "postgres"), ("store.url", "postgres://gateway@127.0.0.1:5432/gateway"),
        ])
        #expect(
            configuration.inboundFilters(TopicScheme()) == [
                "wearables/+/hello", "wearables/+/status", "gateway/+/headphone/reset-pose", "$share/fleet-1/gateway/+/recorder/query/#",
            ])
    }

    @Test("partitioned mode on SQLite is refused under store.backend, saying why; single mode keeps SQLite")
    func clusteredNeedsPostgres() throws {
        for backend in [[], [("store.backend", "sqlite")]] {
            do {
                _ = try Self.load([("cluster.mode", "partitioned"), ("cluster.instance", "a")] + backend)
                Issue.record("cluster.mode partitioned started on SQLite")
            } catch {
                let issue = try #require(error.issues.first { $0.key == "store.backend" }, "\(error)")
                #expect(issue.message.contains("cluster.mode partitioned needs store.backend: postgres") && issue.message.contains("leases"), "\(issue)")
                #expect(error.issues.count == 1, "\(error)")
            }
        }
        #expect(try Self.load([("cluster.mode", "partitioned"), ("cluster.instance", "a")] + Self.postgres).store.backend == .postgres)
        #expect(try Self.load([]).store.backend == .sqlite, "single mode stays on SQLite, no server")
    }

    @Test("bad values name the key", arguments: [
        ("cluster.mode", "sharded", "must be single, partitioned or shared"), ("cluster.instance", "gw/a", "may hold only"),
        ("cluster.instance", "gw+", "may hold only"), ("cluster.instance", ".hidden", "must not start"), ("cluster.group", "a#b", "may hold only"),
        ("cluster.heartbeatInterval", "0", "must be a number"), ("cluster.leaseTime", "0.1", "must be a number"),
    ])
    func invalid(key: String, value: String, message: String) {
        do {
            _ = try Self.load([(key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains(message) })
        }
    }

    @Test("removed cluster keys are refused, saying they were removed and why, from a file and from the environment")
    func removedKeys() throws {
        for (key, value) in [
            ("cluster.shareState", "true"), ("cluster.stateCacheBytes", "1048576"), ("cluster.expiry", "5"), ("cluster.contextDevices", "10"),
            ("cluster.sharedRouting", "publisher"),
        ] {
            do {
                _ = try Self.load([("cluster.mode", "partitioned"), ("cluster.instance", "a"), (key, value)] + Self.postgres)
                Issue.record("\(key) was accepted")
            } catch {
                #expect(error.issues.count == 1 && error.issues[0].key == key && error.issues[0].message.hasPrefix("removed"), "\(error)")
            }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wg-removed-\(UUID().uuidString).yml").path
        try "cluster:\n  mode: partitioned\n  shareState: false\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        do {
            _ = try ConfigurationLoader.load(file: file, environment: ["WG_CLUSTER_STATE_CACHE_BYTES": "1048576"], overrides: [("registry.file", "null")] + Self.postgres)
            Issue.record("accepted")
        } catch {
            #expect(error.issues.contains { $0.key == "cluster.shareState" && $0.source.hasPrefix(file) && $0.message.hasPrefix("removed") }, "\(error)")
            #expect(error.issues.contains { $0.key == "cluster.stateCacheBytes" && $0.source == "environment WG_CLUSTER_STATE_CACHE_BYTES" && $0.message.hasPrefix("removed") }, "\(error)")
        }
    }

    @Test("a lease time under three heartbeats is refused")
    func leaseAgainstHeartbeat() {
        do {
            _ = try Self.load([("cluster.mode", "partitioned"), ("cluster.instance", "a"), ("cluster.heartbeatInterval", "2"), ("cluster.leaseTime", "5")] + Self.postgres)
            Issue.record("accepted")
        } catch {
            #expect(error.issues.contains { $0.key == "cluster.leaseTime" && $0.message.contains("three times") }, "\(error)")
        }
    }

    @Test("host names are made topic-safe")
    func topicSafe() {
        #expect(GatewayConfiguration.Cluster.topicSafe("node 1/rack#2") == "node-1-rack-2")
        #expect(GatewayConfiguration.Cluster.topicSafe("..x") == "x")
        #expect(GatewayConfiguration.Cluster.topicSafe("") == "gateway")
    }
}
