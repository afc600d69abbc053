import Foundation
import Locking
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// The membership of clustered modes as a service, on a connection of its own
/// (`<clientId>-<instance>-cluster`, whose will marks this instance offline):
///
/// 1. subscribes `gateway/instances/+` and `gateway/status`, announces itself `starting` and
///    waits for that announcement to come back: every
///    retained announcement was delivered before it, so the membership is known and the
///    subscriber may start (it subscribes while this instance owns nothing yet);
/// 2. once the subscriber subscribed, announces itself `online` and counts itself in when the
///    announcement comes back; it and the others switch ownership at the announcement's date
///    plus `cluster.handoverWarmup` (it warms up as a shadow meanwhile). Then it re-announces
///    every `cluster.heartbeatInterval` and drops instances silent for `cluster.expiry`;
/// 3. keeps `gateway/status` online while this instance is live: an instance's departure writes
///    offline there (its will or its shutdown), and every live instance writes online again;
/// 4. listed last, it stops first: announces `draining` and keeps publishing for
///    `cluster.handoverWarmup` while the next owners warm up, then announces `offline`, so the
///    others own its devices before its subscriber stops.
struct MembershipService: Service {
    let configuration: GatewayConfiguration
    let cluster: ClusterRuntime
    /// The publishing connection: writes `gateway/status` online again when another instance left.
    let connection: any OutboundConnection
    /// The gateway's status message (this instance's).
    let status: StatusMessage
    let metrics: GatewayMetrics
    let health: RuntimeHealth
    let logger: Logger

    private enum Event: Sendable {
        /// One of this run's own announcements came back (its beat).
        case echo(Int)
        /// `gateway/status` said offline.
        case statusOffline
        /// The broker published this run's will: the others dropped this instance (its
        /// connection was lost long enough), so it has to join again.
        case willFired
    }

    private var now: Double { Date().timeIntervalSince1970 }

    func run() async {
        let logger = logger
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let client: MQTTClient
        do {
            client = try MQTTClient(
                configuration: configuration.clusterConfiguration(will: cluster.status.message(.offline, beat: 0, reason: "connectionLost")),
                logger: logger, onMessage: messageHandler(sink),
                onEvent: { [metrics, health] event in
                    metrics.recordConnectionEvent(event, connection: "cluster")
                    health.record(event, connection: "cluster")
                })
        } catch {
            logger.error("cluster: cannot create the membership connection: \(error)")
            cluster.view.abandon()
            return
        }
        client.start()
        let echoes = EchoWaiter()
        let beat = LockedState(0)
        let live = LockedState(false)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events {
                    switch event {
                    case .echo(let number): echoes.arrived(number)
                    case .statusOffline:
                        guard live.withLock({ $0 }) else { continue }
                        try? await connection.send(status.message(online: true, reason: nil, date: now))
                        logger.info("cluster: an instance left; \(status.topic) is online again")
                    case .willFired:
                        // After a reconnect the resubscription shows the will the broker published
                        // while we were away: the others own our devices now. Own nothing until
                        // joined again, with a warm-up (the heartbeat loop does it).
                        guard live.withLock({ $0 }) else { continue }
                        cluster.view.willFired(at: now)
                    }
                }
            }
            try? await cancelWhenGracefulShutdown {
                try await join(client, echoes: echoes, beat: beat)
                live.withLock { $0 = true }
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(configuration.cluster.heartbeatInterval))
                    // Checked before announcing: after a freeze, this beat's echo must not be the
                    // first the others read (their warm-up would count from its date, not the rejoin's).
                    _ = cluster.view.plan(at: now)
                    if cluster.view.lapsed {
                        try await rejoin(client, echoes: echoes, beat: beat)
                        continue
                    }
                    try? await client.send(cluster.status.message(.online, beat: beat.next()))
                    if cluster.view.expire(at: now) != nil {
                        logger.notice("cluster: instances in force now \(cluster.view.owners.joined(separator: ", "))")
                    }
                }
            }
            live.withLock { $0 = false }
            await leave(client, echoes: echoes, beat: beat)
            sink.finish()
            group.cancelAll()
        }
        cluster.view.abandon()
        _ = await client.flush(timeout: 2)
        await client.shutdown()
    }

    /// Steps 1 and 2: membership known, subscriber subscribed, this instance online.
    private func join(_ client: MQTTClient, echoes: EchoWaiter, beat: LockedState<Int>) async throws {
        let logger = logger
        let filters = [cluster.instancesFilter, status.topic]
        while true {
            try Task.checkCancellation()
            do {
                try await client.waitUntilConnected(timeout: configuration.mqtt.connectTimeout)
                try await client.subscribe(filters, qos: .atLeastOnce)
                let number = beat.next()
                try await client.send(cluster.status.message(.starting, beat: number))
                if await echoes.wait(for: number, timeout: configuration.mqtt.connectTimeout) { break }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                logger.warning("cluster: membership connection not ready yet (\(error)); retrying")
            }
        }
        cluster.view.settle(at: now)
        cluster.view.markKnown()
        logger.info("cluster: instance \(cluster.instance) (\(cluster.mode.rawValue)) found instances \(cluster.view.owners.joined(separator: ", "))")
        guard await cluster.view.waitUntilInboundReady() else { throw CancellationError() }
        try await announceOnline(client, echoes: echoes, beat: beat)
        logger.notice("cluster: instance \(cluster.instance) online; instances in force \(cluster.view.owners.joined(separator: ", "))")
    }

    /// After a lapse (frozen for `cluster.expiry`, or the broker published the will): the others
    /// took this instance's devices over. Announce `online` again and take devices back only after
    /// the warm-up from that announcement's date, as a newcomer does.
    private func rejoin(_ client: MQTTClient, echoes: EchoWaiter, beat: LockedState<Int>) async throws {
        logger.warning("cluster: this instance's own announcements did not come back for cluster.expiry (frozen?) or its will was published: the others took its devices over; owning nothing until joined again")
        try await announceOnline(client, echoes: echoes, beat: beat)
        logger.notice("cluster: joined again; taking devices over after the warm-up")
    }

    /// Announces `online` until the announcement comes back, then counts this instance in.
    private func announceOnline(_ client: MQTTClient, echoes: EchoWaiter, beat: LockedState<Int>) async throws {
        while true {
            try Task.checkCancellation()
            let number = beat.next()
            let date = now
            try? await client.send(cluster.status.message(.online, beat: number, date: date))
            if await echoes.wait(for: number, timeout: configuration.mqtt.connectTimeout) {
                // The others read it at the same time: all count the warm-up from its date.
                cluster.view.setSelf(.online, date: date, at: now)
                return
            }
        }
    }

    /// Step 4: drain (the next owners warm up while this instance still publishes), then leave.
    private func leave(_ client: MQTTClient, echoes: EchoWaiter, beat: LockedState<Int>) async {
        let warmup = configuration.cluster.handoverWarmup
        if warmup > 0, cluster.mode == .partitioned, cluster.view.owners.contains(cluster.instance), cluster.view.owners.count > 1 {
            let date = now
            try? await client.send(cluster.status.message(.draining, beat: beat.next(), date: date))
            cluster.view.setSelf(.draining, date: date, at: now)
            logger.notice("cluster: draining for \(warmup) s while the next owners warm up")
            // The switch is at date + warmup on every instance's clock; the announcement is
            // repeated (same date) so nobody expires this instance meanwhile.
            while now < date + warmup {
                try? await Task.sleep(for: .seconds(min(configuration.cluster.heartbeatInterval, max(0.01, date + warmup - now))))
                if now < date + warmup { try? await client.send(cluster.status.message(.draining, beat: beat.next(), date: date)) }
            }
            _ = cluster.view.plan(at: now)
        }
        let number = beat.next()
        try? await client.send(cluster.status.message(.offline, beat: number, reason: "shutdown"))
        _ = await echoes.wait(for: number, timeout: 2)
        cluster.view.setSelf(.idle, date: now, at: now)
        logger.notice("cluster: left; instances in force \(cluster.view.owners.joined(separator: ", "))")
    }

    /// Handles the membership connection's messages on its network thread.
    private func messageHandler(_ sink: AsyncStream<Event>.Continuation) -> MQTTClient.MessageHandler {
        let cluster = cluster
        let statusTopic = status.topic
        let logger = logger
        return { message in
            if message.topic == statusTopic {
                if message.payloadString.contains(#""state":"offline""#) { sink.yield(.statusOffline) }
                return
            }
            guard let parsed = InstanceStatusMessage.parse(message.payload) else { return }
            if parsed.instance == cluster.instance {
                guard parsed.incarnation == cluster.status.incarnation, let beat = parsed.beat else { return }
                // Recorded here, as it is read, so frames read later on other threads are judged
                // against it (SelfLiveness).
                if beat != 0 { cluster.view.echoed(at: Date().timeIntervalSince1970) }
                // Beat 0 is only ever the will.
                sink.yield(beat == 0 ? .willFired : .echo(beat))
                return
            }
            let now = Date().timeIntervalSince1970
            if let plan = cluster.view.announce(parsed.instance, parsed.state.phase, date: parsed.date ?? now, at: now) {
                let next = plan.next.map { "; \($0.ownership.instances.joined(separator: ", ")) from \($0.at)" } ?? ""
                logger.notice("cluster: \(parsed.instance) is \(parsed.state.rawValue); instances in force \(plan.current.instances.joined(separator: ", "))\(next)")
            }
        }
    }
}

extension LockedState<Int> {
    /// The next announcement number of this run (the box counts them up from 0).
    fileprivate func next() -> Int { withLock { $0 += 1; return $0 } }
}
