import Logging
import MQTTTransport
import TelemetryCore

extension GatewayConfiguration {
    /// Every configuration key, in documentation order.
    public static let keys: [ConfigurationKey] = [
        .text(
            "registry.file", "Device registry YAML (devices and their entitlements); reloaded on SIGHUP. null: accept every device (development).",
            default: "config/devices.yml"
        ) { $0.registryFile = $1 },
        .text(
            "capabilities.file", "Capability table YAML: which models and OS versions support which Core Motion features; reloaded on SIGHUP.",
            default: "config/capabilities.yml"
        ) { $0.capabilitiesFile = $1 ?? "config/capabilities.yml" },
        .text(
            "mqtt.broker", "Broker URL: mqtt://HOST:PORT or mqtts://HOST:PORT (TLS).", default: "mqtt://127.0.0.1:1883",
            validate: { text in
                do throws(BrokerURL.ParseError) {
                    _ = try BrokerURL(parsing: text)
                    return nil
                } catch {
                    return error.description
                }
            }
        ) { configuration, text in
            if let text, let url = try? BrokerURL(parsing: text) { configuration.mqtt.broker = url }
        },
        .text(
            "mqtt.clientId", "Client id prefix; the gateway connects as <clientId>-in (subscriber) and <clientId>-out (publisher).",
            default: "wearable-gateway",
            validate: { text in
                text.count <= 60 ? nil : "must be at most 60 characters (4 more are appended), got \(text.count)"
            }
        ) { $0.mqtt.clientID = $1 ?? "wearable-gateway" },
        .text("mqtt.username", "User name for the broker.", default: nil) { $0.mqtt.username = $1 },
        .text("mqtt.password", "Password for the broker (prefer mqtt.passwordFile or WG_MQTT_PASSWORD; never logged).", default: nil) {
            $0.mqtt.password = $1
        },
        .text("mqtt.passwordFile", "File whose first line is the broker password.", default: nil) { $0.mqtt.passwordFile = $1 },
        .integer("mqtt.keepalive", "Keepalive in seconds.", default: 30, in: 5...65535) { $0.mqtt.keepalive = $1 },
        .integer(
            "mqtt.sessionExpiry",
            "Seconds the broker keeps the subscriber session and queues QoS 1 frames while the gateway is away (0: clean start; clustered modes always start clean).",
            default: 3600, in: 0...Int(UInt32.max)
        ) { $0.mqtt.sessionExpiry = UInt32($1) },
        .integer("mqtt.receiveMaximum", "MQTT 5 receive maximum of the subscriber (unacknowledged QoS 1 frames in flight from the broker).", default: 256, in: 1...65535) {
            $0.mqtt.receiveMaximum = $1
        },
        .integer("mqtt.maxInflightPublishes", "Bound on outstanding publishes of the publisher connection.", default: 1024, in: 1...65535) {
            $0.mqtt.maximumInflightPublishes = $1
        },
        .number("mqtt.connectTimeout", "Seconds an attempt may take to open the TCP connection and get the CONNACK before it is given up and retried.", default: 10, in: 0.1...600) {
            $0.mqtt.connectTimeout = $1
        },
        .number("mqtt.reconnect.initialDelay", "First reconnect delay in seconds (doubles per failure).", default: 0.25, in: 0.01...60) {
            $0.mqtt.reconnectInitialDelay = $1
        },
        .number("mqtt.reconnect.maxDelay", "Longest reconnect delay in seconds.", default: 5, in: 0.01...3600) {
            $0.mqtt.reconnectMaximumDelay = $1
        },
        .text("mqtt.tls.caFile", "PEM file of trusted CAs; enables TLS (mqtts:// without it uses /etc/ssl/certs).", default: nil) {
            $0.mqtt.tlsCAFile = $1
        },
        .text("mqtt.tls.certFile", "Client certificate (PEM) for mutual TLS.", default: nil) { $0.mqtt.tlsCertificateFile = $1 },
        .text("mqtt.tls.keyFile", "Client private key (PEM) for mutual TLS.", default: nil) { $0.mqtt.tlsKeyFile = $1 },
        .flag("mqtt.tls.verifyHostname", "Check that the broker certificate names the host (disable only for tests).", default: true) {
            $0.mqtt.tlsVerifyHostname = $1
        },
        .text(
            "topics.inboundRoot", "Root devices publish under: <root>/{id}/<stream>.", default: TopicScheme.defaultInboundRoot,
            validate: { TopicScheme.validateRoot($0) }
        ) { $0.topics.inboundRoot = $1 ?? TopicScheme.defaultInboundRoot },
        .text(
            "topics.outboundRoot", "Root the gateway publishes under.", default: TopicScheme.defaultOutboundRoot,
            validate: { TopicScheme.validateRoot($0) }
        ) { $0.topics.outboundRoot = $1 ?? TopicScheme.defaultOutboundRoot },
        .integer("pipeline.workers", "Worker tasks devices are sharded over by a hash of the id (0: one per core; with the broker on the same 2 cores, 1 sustained more: performance.md).", default: 0, in: 0...1024) {
            $0.pipeline.workers = $1
        },
        .integer("pipeline.queueCapacity", "Frames each worker queue holds before the subscriber applies backpressure.", default: 8192, in: 16...10_000_000) {
            $0.pipeline.queueCapacity = $1
        },
        .number(
            "pipeline.maxHandoffWait", "Longest the subscriber blocks on a full queue (s) before admitting over capacity (counted).",
            default: 5, in: 0.001...3600
        ) { $0.pipeline.maximumHandoffWait = $1 },
        .integer("pipeline.maxPayloadBytes", "Largest frame payload accepted, in bytes.", default: 1_048_576, in: 1...268_435_455) {
            $0.pipeline.maximumPayloadBytes = $1
        },
        .number("pipeline.errorReportInterval", "Error events are aggregated per (device, code, stream) over this many seconds.", default: 10, in: 0.1...86400) {
            $0.pipeline.errorReportInterval = $1
        },
        .number("pipeline.drainTimeout", "Longest a graceful shutdown waits for queued frames and publishes (s).", default: 15, in: 0...3600) {
            $0.pipeline.drainTimeout = $1
        },
        .number("metrics.publishInterval", "Seconds between retained gateway/metrics publications (0: off).", default: 5, in: 0...86400) {
            $0.metrics.publishInterval = $1
        },
        .text(
            "recorder.database", "SQLite file of the historical accelerometer store (directory created if missing); null: store nothing.",
            default: "data/recorder.sqlite"
        ) { $0.recorder.database = $1 },
        .number("recorder.retention", "Seconds of recorded accelerometer data kept (36 h: the window watchOS gives apps).", default: 129_600, in: 60...31_536_000) {
            $0.recorder.retention = $1
        },
        .integer("recorder.maxSamples", "Most samples stored over all devices (~95 bytes each on disk); the fullest devices lose their oldest first.", default: 20_000_000, in: 1000...2_000_000_000) {
            $0.recorder.maximumSamples = $1
        },
        .number("recorder.pruneInterval", "Seconds between pruning passes of the store.", default: 60, in: 1...86400) {
            $0.recorder.pruneInterval = $1
        },
        .integer("recorder.queryChunkSamples", "Samples per response message of a recorder query.", default: 1000, in: 1...100_000) {
            $0.recorder.queryChunkSamples = $1
        },
        .text(
            "recorder.maxQueryRange", "Longest range (s) one recorder query may cover; null: the whole retention window (watchOS 3 queries cover 36 h).",
            default: nil,
            validate: { text in
                guard let seconds = Double(text), seconds.isFinite, seconds >= 1 else { return "must be a number of seconds of at least 1, got '\(text)'" }
                return nil
            }
        ) { $0.recorder.maximumQueryRange = $1.flatMap(Double.init) },
        .integer("recorder.queryQueueCapacity", "Recorder queries queued or running at once; more get the error answer busy at once.", default: 64, in: 1...100_000) {
            $0.recorder.queryQueueCapacity = $1
        },
        .integer(
            "recorder.maxQueriesPerRequester", "Recorder queries one requester may have queued or running; more get the error answer tooManyQueries at once.",
            default: 4, in: 1...100_000
        ) { $0.recorder.maximumQueriesPerRequester = $1 },
        .integer("recorder.maxQueryPayloadBytes", "Largest recorder query payload (bytes); larger ones get the error answer payloadTooLarge.", default: 4096, in: 64...1_048_576) {
            $0.recorder.maximumQueryPayloadBytes = $1
        },
        .integer(
            "recorder.maxAnswerPublishesInFlight", "Recorder answer messages unacknowledged at once; at most half of mqtt.maxInflightPublishes is used (the rest is kept for device events).",
            default: 32, in: 1...65535
        ) { $0.recorder.maximumAnswerPublishesInFlight = $1 },
        .number("recorder.tremor.grace", "Seconds past a minute's end the recorded data must reach before that minute's tremor result is published.", default: 5, in: 0...3600) {
            $0.recorder.tremorGrace = $1
        },
        .number("recorder.tremor.idleTimeout", "Seconds without recorder chunks after which a device's last complete minute gets its tremor result.", default: 30, in: 1...86400) {
            $0.recorder.tremorIdleTimeout = $1
        },
        .number(
            "session.endGrace",
            "Seconds after a workout pauses or ends during which its batched frames are still accepted and derived (the last batch arrives after the end); pending swings are decided after it.",
            default: 2, in: 0...60
        ) { $0.derivation.sessionEndGrace = $1 },
        .number(
            "derivation.submersion.hysteresis", "Metres the depth must cross back over a band boundary before a shallower depth state is published (docs/submersion.md).",
            default: 0.05, in: 0...0.5
        ) { $0.derivation.submersion.hysteresis = $1 },
        .number(
            "derivation.submersion.waterDensity", "Water density (kg/m³) for depth from pressure when a measurement has no depth: 1025 sea water, 997 fresh water.",
            default: 1025, in: 950...1100
        ) { $0.derivation.submersion.waterDensity = $1 },
        .number(
            "derivation.submersion.diveEndSilence", "Seconds without submersion frames after which an open dive ends (summary endReason silence, depth state unknown).",
            default: 600, in: 1...86400
        ) { $0.derivation.submersion.diveEndSilence = $1 },
        .number(
            "derivation.submersion.surfaceTimeout",
            "Seconds measurements must say the surface (depth below 0.3 m, or none with the watch's notSubmerged) before an open dive ends without its notSubmerged event.",
            default: 60, in: 1...86400
        ) { $0.derivation.submersion.surfaceTimeout = $1 },
        .number("derivation.submersion.ascentRate.limit", "Ascent rate (m/min) above which gateway/{id}/submersion/ascent-warning is published.", default: 10, in: 1...100) {
            $0.derivation.submersion.ascentRateLimit = $1
        },
        .number("derivation.submersion.ascentRate.window", "Seconds the ascent rate is measured over.", default: 3, in: 0.5...60) {
            $0.derivation.submersion.ascentRateWindow = $1
        },
        .number(
            "derivation.submersion.safetyStop.requiredBeyond", "Dives deeper than this (m) need a safety stop; surfacing without one publishes a safety-stop hint.",
            default: 10, in: 0...200
        ) { $0.derivation.submersion.safetyStopRequiredBeyond = $1 },
        .number("derivation.submersion.safetyStop.depth", "Centre of the safety-stop band, m.", default: 4.5, in: 0...50) {
            $0.derivation.submersion.safetyStopDepth = $1
        },
        .number("derivation.submersion.safetyStop.tolerance", "Half width of the safety-stop band, m (4.5 ± 1.5: 3–6 m).", default: 1.5, in: 0...20) {
            $0.derivation.submersion.safetyStopTolerance = $1
        },
        .number("derivation.submersion.safetyStop.duration", "Seconds the diver must stay in the band for the safety stop to count.", default: 180, in: 1...3600) {
            $0.derivation.submersion.safetyStopDuration = $1
        },
        .number(
            "derivation.submersion.temperature.convergedBelow", "Water temperature is flagged converged once a reading of the dive has an uncertainty below this (°C).",
            default: 0.5, in: 0.01...10
        ) { $0.derivation.submersion.temperatureConvergedBelow = $1 },
        .number("derivation.swing.alignmentWindow", "Seconds of device motion kept per device to align it with the accelerometer (swings are measured across batches).", default: 4, in: 2...30) {
            $0.derivation.swing.alignmentWindow = $1
        },
        .number("derivation.swing.highPassCutoff", "Cutoff (Hz) of the Butterworth high-pass on accelerometer z that isolates ball impacts.", default: 30, in: 5...200) {
            $0.derivation.swing.highPassCutoff = $1
        },
        .number("derivation.swing.impactThreshold", "Smallest high-passed |accelerometer z| (g) that is an impact.", default: 1.5, in: 0.1...100) {
            $0.derivation.swing.impactThreshold = $1
        },
        .number("derivation.swing.startRate", "Rotation rate about gravity (rad/s) above which the wrist is swinging; the start scan's threshold.", default: 1.5, in: 0.1...20) {
            $0.derivation.swing.startRate = $1
        },
        .number("derivation.swing.startConsistency", "Seconds the rate must stay below startRate, scanning back from the impact, to mark the start.", default: 0.015, in: 0.001...0.2) {
            $0.derivation.swing.startConsistency = $1
        },
        .number(
            "derivation.swing.maxOnsetExtrapolation", "Longest move (s) of the start from the threshold crossing back to the rotation onset (0: report the crossing).",
            default: 0.03, in: 0...0.2
        ) { $0.derivation.swing.maxOnsetExtrapolation = $1 },
        .number("derivation.swing.minPeakRate", "Smallest peak rotation rate about gravity (rad/s) of a swing.", default: 8, in: 0.5...100) {
            $0.derivation.swing.minPeakRate = $1
        },
        .number("derivation.swing.minRotationAngle", "Smallest rotation about gravity (rad) from start to impact, or to the peak rate of a miss.", default: 1, in: 0...10) {
            $0.derivation.swing.minRotationAngle = $1
        },
        .number("derivation.swing.minDuration", "Shortest time to contact (s).", default: 0.05, in: 0...1) {
            $0.derivation.swing.minSwingDuration = $1
        },
        .number("derivation.swing.maxDuration", "Longest time to contact, or onset to peak of a miss (s).", default: 0.6, in: 0.05...3) {
            $0.derivation.swing.maxSwingDuration = $1
        },
        .number("derivation.swing.impactSlack", "Seconds after the rotation drops below startRate in which an impact still belongs to the swing.", default: 0.05, in: 0...0.5) {
            $0.derivation.swing.impactSlack = $1
        },
        .number("derivation.swing.maxRotationDuration", "A rotation above startRate lasting longer (s) is not a missed swing.", default: 1.5, in: 0.1...10) {
            $0.derivation.swing.maxRotationDuration = $1
        },
        .number("derivation.swing.tennis.window", "Tennis stroke window (s) over which rotation about gravity is accumulated (SwingWatch: 1).", default: 1, in: 0.2...5) {
            $0.derivation.swing.tennis.window = $1
        },
        .number("derivation.swing.tennis.yawThreshold", "Smallest accumulated rotation (rad) over the window for a stroke (SwingWatch: 1.95).", default: 1.95, in: 0.1...20) {
            $0.derivation.swing.tennis.yawThreshold = $1
        },
        .number("derivation.swing.tennis.rateThreshold", "Smallest peak rotation rate (rad/s) in the window for a stroke (SwingWatch: 5.5).", default: 5.5, in: 0.1...100) {
            $0.derivation.swing.tennis.rateThreshold = $1
        },
        .number(
            "derivation.swing.tennis.resetFraction", "Counting re-arms when the newest half window's mean rate is below this fraction of rateThreshold (SwingWatch: 0.05).",
            default: 0.05, in: 0.001...1
        ) { $0.derivation.swing.tennis.resetFraction = $1 },
        .names(
            "derivation.swing.tennis.activityTypes", "Comma-separated workout activity types during which strokes are counted (null: always).",
            default: ["tennis"]
        ) { $0.derivation.swing.tennis.activityTypes = $1 },
        .number("derivation.tremor.windowLength", "Seconds per tremor analysis window; a minute's fractions are shares of its windows (docs/tremor.md).", default: 2, in: 1...10) {
            $0.derivation.tremor.windowLength = $1
        },
        .number("derivation.tremor.minCoverage", "Fraction of a window's expected 50 Hz samples it must hold to be judged; fewer: unknown.", default: 0.8, in: 0.1...1) {
            $0.derivation.tremor.minCoverage = $1
        },
        .number(
            "derivation.tremor.voluntaryThreshold", "Change (g) of the mean acceleration vector between consecutive half windows above which the arm moved on purpose (unknown).",
            default: 0.2, in: 0.01...4
        ) { $0.derivation.tremor.voluntaryThreshold = $1 },
        .number("derivation.tremor.minDisplacement", "Smallest peak-to-peak displacement (cm) that counts as tremor; below: none.", default: 0.05, in: 0.001...5) {
            $0.derivation.tremor.minDisplacement = $1
        },
        .number("derivation.tremor.minProminence", "Smallest ratio of the spectrum's peak to its mean over the analysed grid for the peak to count as tremor.", default: 3, in: 1...50) {
            $0.derivation.tremor.minProminence = $1
        },
        .number("derivation.tremor.bandLow", "Lower edge (Hz) of the resting-tremor band.", default: 3, in: 0.5...20) { $0.derivation.tremor.bandLow = $1 },
        .number("derivation.tremor.bandHigh", "Upper edge (Hz) of the resting-tremor band (below 25 Hz, the Nyquist frequency at 50 Hz).", default: 7, in: 1...24.5) {
            $0.derivation.tremor.bandHigh = $1
        },
        .number("derivation.tremor.bandMargin", "Hz beyond each band edge the spectrum is also evaluated; a peak there is not band tremor (none).", default: 0.5, in: 0...2) {
            $0.derivation.tremor.bandMargin = $1
        },
        .number("derivation.tremor.frequencyStep", "Step (Hz) of the frequency grid the spectrum is evaluated on.", default: 0.02, in: 0.005...0.5) {
            $0.derivation.tremor.frequencyStep = $1
        },
        .number("derivation.run.hillHeight", "Elevation gain (m) from which a run segment is flagged hill: true (docs/run-segments.md).", default: 10, in: 0...1000) {
            $0.derivation.run.hillHeight = $1
        },
        .number(
            "derivation.run.elevationDeadband", "Metres the smoothed altitude must move against its direction before a climb or descent counts (keeps barometer noise out).",
            default: 1, in: 0...20
        ) { $0.derivation.run.elevationDeadband = $1 },
        .number("derivation.run.altitudeSmoothing", "Width (s) of the moving average over altimeter samples before the dead band (0: none).", default: 5, in: 0...60) {
            $0.derivation.run.altitudeSmoothing = $1
        },
        .number(
            "derivation.run.finalizeTimeout", "Longest wait (s, gateway clock) for pedometer and altimeter data covering a segment's end before it is published anyway.",
            default: 10, in: 0...3600
        ) { $0.derivation.run.finalizeTimeout = $1 },
        .number(
            "derivation.run.idleTimeout", "Without a workout, pedometer events alone bound segments; the implicit activity closes after this many seconds paused (gateway clock).",
            default: 300, in: 1...86400
        ) { $0.derivation.run.idleTimeout = $1 },
        .integer("derivation.run.maxAltitudeSamples", "Most altimeter samples kept per device for the current workout (oldest dropped).", default: 20_000, in: 2...1_000_000) {
            $0.derivation.run.maxAltitudeSamples = $1
        },
        .integer("derivation.run.maxPedometerUpdates", "Most cumulative pedometer updates kept per device (oldest dropped).", default: 20_000, in: 2...1_000_000) {
            $0.derivation.run.maxPedometerUpdates = $1
        },
        .integer("derivation.run.maxPendingEvents", "Most pause/resume events waiting per workout (after the last published segment).", default: 1_000, in: 2...100_000) {
            $0.derivation.run.maxPendingEvents = $1
        },
        .names(
            "derivation.run.activityTypes", "Comma-separated workout activity types that have run segments (null: every workout).",
            default: ["running", "walking", "hiking"]
        ) { $0.derivation.run.activityTypes = $1 },
        .number(
            "derivation.headphones.streamTimeout", "Seconds without headphone motion before connected headphones become disconnected (reason streamTimeout).",
            default: 2, in: 0.1...3600
        ) { $0.derivation.headphones.streamTimeout = $1 },
        .number(
            "derivation.headphones.resumeSpan", "Seconds of sample time motion must keep arriving while disconnected to count as connected again (streamResumed); 0: at once.",
            default: 0.5, in: 0...60
        ) { $0.derivation.headphones.resumeSpan = $1 },
        .number("derivation.headphones.poseRate", "Most gateway/{id}/headphone/pose messages per second (sample time).", default: 10, in: 0.1...1000) {
            $0.derivation.headphones.poseRate = $1
        },
        .number("derivation.headphones.posture.angle", "Degrees below the reference pitch that count as head down.", default: 20, in: 1...89) {
            $0.derivation.headphones.postureAngle = $1
        },
        .number("derivation.headphones.posture.duration", "Seconds the head must stay down before headDown is published.", default: 30, in: 0...86400) {
            $0.derivation.headphones.postureDuration = $1
        },
        .number(
            "derivation.headphones.posture.hysteresis", "Degrees the head must come back past the posture angle before upright is published (below posture.angle).",
            default: 5, in: 0...88
        ) { $0.derivation.headphones.postureHysteresis = $1 },
        .number("derivation.headphones.gesture.rotationRate", "Rotation rate (rad/s) each swing of a nod or shake must reach.", default: 1, in: 0.1...50) {
            $0.derivation.headphones.gestureRotationRate = $1
        },
        .integer("derivation.headphones.gesture.swings", "Alternating swings that make a nod or shake.", default: 3, in: 2...20) {
            $0.derivation.headphones.gestureSwings = $1
        },
        .number("derivation.headphones.gesture.swingGap", "Longest pause (s) between the starts of consecutive swings of one gesture.", default: 0.8, in: 0.05...10) {
            $0.derivation.headphones.gestureSwingGap = $1
        },
        .number(
            "derivation.headphones.gesture.dominance", "How many times the gesture axis's rate must exceed the other axis's for a swing.", default: 2,
            in: 1...100
        ) { $0.derivation.headphones.gestureDominance = $1 },
        .text(
            "logging.level", "Log level: trace, debug, info, notice, warning, error, critical.", default: "info",
            validate: { Logger.Level(rawValue: $0.lowercased()) == nil ? "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\($0)'" : nil }
        ) { configuration, text in
            if let text, let level = Logger.Level(rawValue: text.lowercased()) { configuration.logLevel = level }
        },
    ] + reliabilityKeys + deviceStateKeys + operationsKeys + clusterKeys

    /// Checks that span several keys; each issue names the key to change.
    func crossKeyIssues() -> [ConfigurationIssue] {
        var issues: [ConfigurationIssue] = []
        if (mqtt.tlsCertificateFile == nil) != (mqtt.tlsKeyFile == nil) {
            issues.append(.init(key: "mqtt.tls.certFile", source: "configuration", message: "mqtt.tls.certFile and mqtt.tls.keyFile go together; set both or neither"))
        }
        if pipeline.maximumHandoffWait * 2 >= Double(mqtt.keepalive) {
            issues.append(
                .init(
                    key: "pipeline.maxHandoffWait", source: "configuration",
                    message: "must be under half of mqtt.keepalive (\(mqtt.keepalive) s), got \(pipeline.maximumHandoffWait): a longer block risks a keepalive timeout"))
        }
        issues += reliabilityIssues()
        issues += clusterIssues()
        issues += operationsIssues()
        if mqtt.reconnectInitialDelay > mqtt.reconnectMaximumDelay {
            issues.append(.init(key: "mqtt.reconnect.initialDelay", source: "configuration", message: "must not exceed mqtt.reconnect.maxDelay"))
        }
        for (key, path) in [("mqtt.tls.caFile", mqtt.tlsCAFile), ("mqtt.tls.certFile", mqtt.tlsCertificateFile), ("mqtt.tls.keyFile", mqtt.tlsKeyFile)] {
            if let path, let problem = CredentialFiles.pemProblem(at: path) {
                issues.append(.init(key: key, source: "configuration", message: problem.message))
            }
        }
        if !FileSystem.isReadableFile(capabilitiesFile) {
            issues.append(.init(key: "capabilities.file", source: "configuration", message: "file '\(capabilitiesFile)' does not exist or is not readable"))
        }
        if let registryFile, !FileSystem.isReadableFile(registryFile) {
            issues.append(.init(key: "registry.file", source: "configuration", message: "file '\(registryFile)' does not exist or is not readable"))
        }
        if let problem = topics.scheme.configurationProblem {
            issues.append(.init(key: "topics.outboundRoot", source: "configuration", message: problem))
        }
        // Every deriver's own check (posture hysteresis below its angle, tremor band below
        // Nyquist, …): the same code that guards programmatic use.
        if let issue = derivation.configurationIssue {
            issues.append(.init(key: issue.key, source: "configuration", message: issue.message))
        }
        return issues
    }
}
