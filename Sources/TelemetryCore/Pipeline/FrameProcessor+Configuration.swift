extension FrameProcessor {
    /// Settings of a ``FrameProcessor``; every value has a default.
    public struct Configuration: Sendable, Equatable {
        /// The topic layout (inbound and outbound roots).
        public var scheme: TopicScheme
        /// The largest payload accepted, in bytes (`pipeline.maxPayloadBytes`); larger frames are `invalidPayload`.
        public var maxPayloadBytes: Int
        /// The error reporting window in seconds: at most about one report per key per interval.
        public var errorReportInterval: Double
        /// The most error keys tracked per aggregator (topic errors and device errors each);
        /// beyond it errors are counted in one overflow report.
        public var maxErrorKeys: Int
        /// The most devices whose presence is remembered; beyond it, a status of an unseen device is
        /// published but not remembered, so a flood of made-up ids cannot grow memory.
        public var maxTrackedDevices: Int
        /// The physical bounds and batch lengths payloads are validated against.
        public var validationLimits: ValidationLimits
        /// The most (device, stream) pairs whose `sequence` is tracked; beyond it frames of new pairs
        /// are counted as untracked until a device goes offline.
        public var maxTrackedSequences: Int
        /// The device registry and capability table frames are checked against, in the
        /// contract's order (registry → availability → authorization → entitlement → workout
        /// session). `nil` skips these checks — only for tests and benchmarks of the other
        /// stages; the gateway always sets it.
        public var accessPolicy: AccessPolicy?
        /// Settings of the derivations (depth states, swings, head pose, run segments, …).
        public var derivation: DerivationConfiguration
        /// Republish rejected frames as dead letters with this rate limit; nil: off
        /// (`deadLetter.enabled`).
        public var deadLetters: DeadLetterPolicy?
        /// The identity of the journal whose sequence numbers frames carry (``InboundFrame/journalSequence``);
        /// nil: no journal. A snapshot's applied sequence counts only for the journal it was
        /// taken with: another instance's, or a journal made anew, numbers from elsewhere.
        public var journalIdentity: UInt64?

        /// Creates a configuration.
        /// - Parameters:
        ///   - scheme: the topic layout; defaults to `wearables` / `gateway`.
        ///   - maxPayloadBytes: the payload limit in bytes; defaults to 1 MiB.
        ///   - errorReportInterval: the reporting window in seconds; defaults to 10.
        ///   - maxErrorKeys: the error keys tracked per aggregator; defaults to 10,000.
        ///   - maxTrackedDevices: the devices whose presence is remembered; defaults to 100,000.
        ///   - validationLimits: the payload bounds; defaults to the documented ``ValidationLimits``.
        ///   - maxTrackedSequences: the (device, stream) pairs whose sequence is tracked; defaults to 400,000.
        ///   - accessPolicy: the registry and capability table; nil skips the access checks.
        ///   - derivation: the derivations' settings; defaults to the documented defaults.
        ///   - deadLetters: the dead-letter rate limit; nil (the default) publishes none.
        public init(
            scheme: TopicScheme = TopicScheme(),
            maxPayloadBytes: Int = 1_048_576,
            errorReportInterval: Double = 10,
            maxErrorKeys: Int = 10_000,
            maxTrackedDevices: Int = 100_000,
            validationLimits: ValidationLimits = ValidationLimits(),
            maxTrackedSequences: Int = 400_000,
            accessPolicy: AccessPolicy? = nil,
            derivation: DerivationConfiguration = DerivationConfiguration(),
            deadLetters: DeadLetterPolicy? = nil,
            journalIdentity: UInt64? = nil
        ) {
            self.scheme = scheme
            self.maxPayloadBytes = maxPayloadBytes
            self.errorReportInterval = errorReportInterval
            self.maxErrorKeys = maxErrorKeys
            self.maxTrackedDevices = maxTrackedDevices
            self.validationLimits = validationLimits
            self.maxTrackedSequences = maxTrackedSequences
            self.accessPolicy = accessPolicy
            self.derivation = derivation
            self.deadLetters = deadLetters
            self.journalIdentity = journalIdentity
        }

        /// Says why this configuration cannot be used; check it before creating a ``FrameProcessor``
        /// from operator input, because the processor traps on a non-positive interval or key bound.
        /// - Returns: nil when usable, else a human-readable reason naming the setting.
        public var configurationProblem: String? {
            if let problem = scheme.configurationProblem { return problem }
            if maxPayloadBytes < 1 { return "pipeline.maxPayloadBytes must be at least 1, got \(maxPayloadBytes)" }
            if !(errorReportInterval > 0 && errorReportInterval.isFinite) {
                return "the error report interval must be a positive number of seconds, got \(errorReportInterval)"
            }
            if maxErrorKeys < 1 { return "the error key bound must be at least 1, got \(maxErrorKeys)" }
            if maxTrackedDevices < 0 { return "the tracked device bound must not be negative, got \(maxTrackedDevices)" }
            if maxTrackedSequences < 0 { return "the tracked sequence bound must not be negative, got \(maxTrackedSequences)" }
            return nil
        }
    }
}
