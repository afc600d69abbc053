import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The membership of clustered modes as a service, on a connection of its own
/// (`<clientId>-<instance>-cluster`, whose will marks this instance offline):
///
/// 1. subscribes `gateway/instances/+`, `gateway/status` and (partitioned mode) the context
///    copies, announces itself `starting` and waits for that announcement to come back: every
///    retained announcement was delivered before it, so the membership is known and the
///    subscriber may start (it subscribes while this instance owns nothing yet);
/// 2. once the subscriber subscribed, announces itself `online` and counts itself live when the
///    announcement comes back (the other instances count it at the same moment), then re-announces
///    every `cluster.heartbeatInterval` and drops instances silent for `cluster.expiry`;
/// 3. keeps `gateway/status` online while this instance is live: an instance's departure writes
///    offline there (its will or its shutdown), and every live instance writes online again;
/// 4. listed last, it stops first: announces `offline` and stops counting itself once that came
///    back, so the others take its devices over before its subscriber stops.
struct MembershipService: Service {
    let runtime: GatewayRuntime
    let cluster: ClusterRuntime

    private enum Event: Sendable {
        /// One of this run's own announcements came back (its beat).
        case echo(Int)
        /// `gateway/status` said offline.
        case statusOffline
        /// The connection (re)connected.
        case connected
    }

    func run() async {
        let logger = runtime.logger
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let handler = messageHandler(sink)
        let client: MQTTClient
        do {
            client = try MQTTClient(
                configuration: runtime.configuration.clusterConfiguration(will: cluster.status.message(.offline, beat: 0, reason: "connectionLost")),
                logger: logger, onMessage: handler,
                onEvent: { [metrics = runtime.metrics, health = runtime.operations.health] event in
                    metrics.recordConnectionEvent(event, connection: "cluster")
                    health.record(event, connection: "cluster")
                    if case .connected = event { sink.yield(.connected) }
                })
        } catch {
            logger.error("cluster: cannot create the membership connection: \(error)")
            cluster.view.abandon()
            return
        }
        client.start()
        let echoes = EchoWaiter()
        let beat = Counter()
        let leaving = LockedFlag()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .echo(let number): echoes.arrived(number)
                    case .statusOffline:
                        guard !leaving.value, cluster.view.live.contains(cluster.instance) else { continue }
                        try? await runtime.publisher.client.send(
                            StatusMessage(scheme: runtime.scheme, startedAt: runtime.startedAt, instance: cluster.instance).message(online: true, reason: nil))
                        logger.info("cluster: another instance left; \(runtime.scheme.statusTopic) is online again")
                    case .connected:
                        // The broker may have fired our will (a network blip): say online again.
                        if cluster.view.live.contains(cluster.instance) { try? await client.send(cluster.status.message(.online, beat: beat.next())) }
                    }
                }
            }
            group.addTask { await publishReplicas(client) }
            try? await cancelWhenGracefulShutdown {
                try await join(client, echoes: echoes, beat: beat)
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(runtime.configuration.cluster.heartbeatInterval))
                    try? await client.send(cluster.status.message(.online, beat: beat.next()))
                    if let live = cluster.view.expire(at: Date().timeIntervalSince1970) {
                        logger.notice("cluster: live instances now \(live.joined(separator: ", "))")
                    }
                }
            }
            // Leave: the others take over when they read this, and so do we.
            leaving.set()
            let number = beat.next()
            try? await client.send(cluster.status.message(.offline, beat: number, reason: "shutdown"))
            _ = await echoes.wait(for: number, timeout: 2)
            if let live = cluster.view.setSelfLive(false, at: Date().timeIntervalSince1970) {
                logger.notice("cluster: left; live instances now \(live.joined(separator: ", "))")
            }
            cluster.finishReplicas()
            sink.finish()
            group.cancelAll()
        }
        cluster.view.abandon()
        _ = await client.flush(timeout: 2)
        await client.shutdown()
    }

    /// Steps 1 and 2: membership known, subscriber subscribed, this instance live.
    private func join(_ client: MQTTClient, echoes: EchoWaiter, beat: Counter) async throws {
        let logger = runtime.logger
        var filters = [cluster.instancesFilter, runtime.scheme.statusTopic]
        if cluster.gate != nil { filters.append(cluster.contextPrefix + "#") }
        while true {
            try Task.checkCancellation()
            do {
                try await client.waitUntilConnected(timeout: runtime.configuration.mqtt.connectTimeout)
                try await client.subscribe(filters, qos: .atLeastOnce)
                let number = beat.next()
                try await client.send(cluster.status.message(.starting, beat: number))
                if await echoes.wait(for: number, timeout: runtime.configuration.mqtt.connectTimeout) { break }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.warning("cluster: membership connection not ready yet (\(error)); retrying")
            }
        }
        cluster.view.markKnown()
        logger.info("cluster: instance \(cluster.instance) (\(cluster.mode.rawValue)) sees \(cluster.view.live.count) live instances: \(cluster.view.live.joined(separator: ", "))")
        guard await cluster.view.waitUntilInboundReady() else { throw CancellationError() }
        while true {
            try Task.checkCancellation()
            let number = beat.next()
            try? await client.send(cluster.status.message(.online, beat: number))
            if await echoes.wait(for: number, timeout: runtime.configuration.mqtt.connectTimeout) { break }
        }
        let live = cluster.view.setSelfLive(true, at: Date().timeIntervalSince1970) ?? cluster.view.live
        logger.notice("cluster: instance \(cluster.instance) online; live instances \(live.joined(separator: ", "))")
    }

    /// Handles the membership connection's messages on its network thread.
    private func messageHandler(_ sink: AsyncStream<Event>.Continuation) -> MQTTClient.MessageHandler {
        let cluster = cluster
        let statusTopic = runtime.scheme.statusTopic
        let inboundRoot = runtime.scheme.inboundRoot
        let logger = runtime.logger
        return { message in
            if message.topic.hasPrefix(cluster.contextPrefix) {
                cluster.receiveReplica(message, inboundRoot: inboundRoot)
                return
            }
            if message.topic == statusTopic {
                if message.payloadString.contains(#""state":"offline""#) { sink.yield(.statusOffline) }
                return
            }
            guard let parsed = InstanceStatusMessage.parse(message.payload) else { return }
            if parsed.instance == cluster.instance {
                if parsed.incarnation == cluster.status.incarnation, let beat = parsed.beat { sink.yield(.echo(beat)) }
                return
            }
            if let live = cluster.view.announce(parsed.instance, online: parsed.state == .online, at: Date().timeIntervalSince1970) {
                logger.notice("cluster: \(parsed.instance) is \(parsed.state.rawValue); live instances now \(live.joined(separator: ", "))")
            }
        }
    }

    private func publishReplicas(_ client: MQTTClient) async {
        for await replica in cluster.replicas {
            do {
                try await client.send(replica)
            } catch {
                runtime.logger.debug("cluster: could not copy context \(replica.topic): \(error)")
            }
        }
    }
}

/// Announcement numbers of this run, counted up.
private final class Counter: Sendable {
    private let value = LockedState(0)
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

/// A flag set once.
private final class LockedFlag: Sendable {
    private let flag = LockedState(false)
    var value: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
