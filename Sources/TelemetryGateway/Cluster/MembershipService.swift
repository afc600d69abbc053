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
///    announcement comes back; it and the others apply the new plan `cluster.handoverWarmup`
///    after each read the announcement, on their own monotonic clocks (it warms up as a shadow
///    meanwhile, then claims its devices, and each claim moves a device). Then it re-announces
///    every `cluster.heartbeatInterval` and drops instances silent for `cluster.expiry`;
/// 3. keeps `gateway/status` online while this instance is live: an instance's departure writes
///    offline there (its will or its shutdown), and every live instance writes online again;
/// 4. listed last, it stops first: announces `draining` and keeps publishing while the next
///    owners warm up (`cluster.handoverWarmup`) and claim its devices (each claim notified
///    releases one, for at most `cluster.expiry` more), then announces `offline`: the devices
///    not claimed yet are released with their final snapshots, so the others own its devices
///    before its subscriber stops.
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

    /// This instance's monotonic seconds (``ClusterRuntime/now()``): membership counts on no wall clock.
    private var now: Double { cluster.now() }

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
            try? await client.send(cluster.status.message(.online, beat: number))
            if await echoes.wait(for: number, timeout: configuration.mqtt.connectTimeout) {
                // The others read it about now: each counts the warm-up from its own reading.
                cluster.view.setSelf(.online, at: now)
                return
            }
        }
    }

    /// Step 4: drain (the next owners warm up and claim while this instance still publishes),
    /// then leave.
    private func leave(_ client: MQTTClient, echoes: EchoWaiter, beat: LockedState<Int>) async {
        let warmup = configuration.cluster.handoverWarmup
        if warmup > 0, cluster.mode == .partitioned, cluster.view.owners.contains(cluster.instance), cluster.view.owners.count > 1 {
            let date = cluster.wallTime()
            try? await client.send(cluster.status.message(.draining, beat: beat.next(), date: date))
            cluster.view.setSelf(.draining, at: now)
            logger.notice("cluster: draining for \(warmup) s while the next owners warm up, then until they claimed the devices")
            // The announcement is repeated (same date) so nobody expires this instance meanwhile.
            let heartbeat = Task { [client, cluster, interval = configuration.cluster.heartbeatInterval] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    if !Task.isCancelled { try? await client.send(cluster.status.message(.draining, beat: beat.next(), date: date)) }
                }
            }
            try? await Task.sleep(for: .seconds(warmup))
            _ = cluster.view.plan(at: now)
            // Each next owner claims its devices at the end of its own warm-up; each claim
            // notified here releases one. Bounded: a device its next owner did not claim by then
            // is released with its final snapshot when this instance leaves.
            let left = await cluster.gate.waitUntilHandedOver(timeout: configuration.cluster.expiry)
            heartbeat.cancel()
            if left > 0 {
                logger.notice("cluster: \(left) devices were not claimed by their next owners within cluster.expiry; released with their final snapshots")
            }
        }
        let number = beat.next()
        try? await client.send(cluster.status.message(.offline, beat: number, reason: "shutdown"))
        _ = await echoes.wait(for: number, timeout: 2)
        cluster.view.setSelf(.idle, at: now)
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
                if beat != 0 { cluster.view.echoed(at: cluster.now()) }
                // Beat 0 is only ever the will.
                sink.yield(beat == 0 ? .willFired : .echo(beat))
                return
            }
            if let plan = cluster.view.announce(parsed.instance, parsed.state.phase, at: cluster.now()) {
                let next = plan.next.map { "; \($0.ownership.instances.joined(separator: ", ")) after the warm-up" } ?? ""
                logger.notice("cluster: \(parsed.instance) is \(parsed.state.rawValue); instances in force \(plan.current.instances.joined(separator: ", "))\(next)")
            }
        }
    }
}

extension LockedState<Int> {
    /// The next announcement number of this run (the box counts them up from 0).
    fileprivate func next() -> Int { withLock { $0 += 1; return $0 } }
}
