/// The access checks of the wire contract, run after decoding and validation and before any
/// derivation: registry → availability → authorization → entitlement → session.
///
/// | step | fails with | when |
/// |---|---|---|
/// | registry | `unknownDevice` | the id is not listed and the registry is closed |
/// | availability | `notAvailable` (109) | no `hello` seen yet, or its model/platform/OS lacks the stream's capability |
/// | authorization | `notAuthorized` (111) | the latest authorization is not `authorized` |
/// | entitlement | `notEntitled` (110) | the registry grants none of the stream's entitlements |
/// | session | `noActiveWorkout` (108) | a `batched/*` frame while no workout is `running`, unless the session's end grace admits it (``WorkoutEndGrace``) |
///
/// Control streams (`hello`, `status`, `authorization`, `workout`) only take the registry step
/// (see ``StreamRequirement``). The first failing step decides the verdict.
public enum AccessChecker {
    /// Checks one frame.
    /// - Parameters:
    ///   - stream: the frame's stream.
    ///   - device: the device that sent it.
    ///   - state: what is known about the device, or nil when nothing was seen.
    ///   - registry: the operator's device registry.
    ///   - capabilities: the capability table.
    /// - Returns: `.allowed` with the device's maximum depth, or `.denied` with the first failing code.
    public static func check(
        stream: InboundStream,
        device: DeviceID,
        state: DeviceAccessState?,
        registry: DeviceRegistry,
        capabilities: CapabilityTable
    ) -> AccessVerdict {
        let resolved = state?.descriptor.map { capabilities.capabilities(for: $0) }
        return check(
            stream: stream, device: device, state: state, entitlements: registry.entitlements(for: device),
            resolvedCapabilities: resolved, table: capabilities, fromDefaults: registry.devices[device] == nil)
    }

    /// The checks with the registry lookup and the capabilities already resolved (the cached path
    /// of ``AccessControl``).
    /// - Parameters:
    ///   - entitlements: the registry's answer for the device (nil: unknown).
    ///   - resolvedCapabilities: the capabilities of the latest `hello`, or nil without one.
    ///   - table: the table, only read to explain a missing capability.
    ///   - fromDefaults: whether `entitlements` are the open registry's defaults (for details).
    ///   - untrackedDetail: replaces the "no hello" detail when the device's state could not be kept.
    ///   - endGraceAdmits: whether the session's end grace admits a `batched/*` frame although no
    ///     workout runs (``WorkoutEndGrace``).
    static func check(
        stream: InboundStream,
        device: DeviceID,
        state: DeviceAccessState?,
        entitlements: Set<Entitlement>?,
        resolvedCapabilities: Set<Capability>?,
        table: CapabilityTable,
        fromDefaults: Bool,
        untrackedDetail: String? = nil,
        endGraceAdmits: Bool = false
    ) -> AccessVerdict {
        if let state {
            return check(
                stream: stream, device: device, knownState: state, entitlements: entitlements, resolvedCapabilities: resolvedCapabilities,
                table: table, fromDefaults: fromDefaults, endGraceAdmits: endGraceAdmits)
        }
        switch registryStep(stream: stream, device: device, entitlements: entitlements) {
        case .decided(let verdict): return verdict
        case .needs: return .denied(code: .notAvailable, detail: untrackedDetail ?? noHelloDetail(device))
        }
    }

    /// ``check(stream:device:state:entitlements:resolvedCapabilities:table:fromDefaults:untrackedDetail:endGraceAdmits:)``
    /// for a device with state, which is only read: a tracked device's state is checked where
    /// it is kept, not copied per frame (with its strings and sets).
    static func check(
        stream: InboundStream,
        device: DeviceID,
        knownState state: DeviceAccessState,
        entitlements: Set<Entitlement>?,
        resolvedCapabilities: Set<Capability>?,
        table: CapabilityTable,
        fromDefaults: Bool,
        endGraceAdmits: Bool
    ) -> AccessVerdict {
        let (capability, granted, maximumDepth): (Capability, Set<Entitlement>, Double?)
        switch registryStep(stream: stream, device: device, entitlements: entitlements) {
        case .decided(let verdict): return verdict
        case .needs(let needed, let known, let depth): (capability, granted, maximumDepth) = (needed, known, depth)
        }
        // Availability: the capabilities come from the hello, so without one nothing is available.
        guard case .some = state.descriptor, let resolvedCapabilities else {
            return .denied(code: .notAvailable, detail: noHelloDetail(device))
        }
        guard resolvedCapabilities.contains(capability) else {
            return .denied(code: .notAvailable, detail: state.descriptor.map { table.explainMissing(capability, for: $0) } ?? noHelloDetail(device))
        }
        let requirement = StreamRequirement.of(stream)

        // Authorization.
        guard state.authorization == .authorized else {
            return .denied(code: .notAuthorized, detail: authorizationDetail(state))
        }

        // Entitlement.
        guard !requirement.entitlements.isDisjoint(with: granted) else {
            let needed = CapabilityRule.joined(requirement.entitlements.sorted().map(\.rawValue))
            let names = granted.isEmpty ? "none" : granted.sorted().map(\.rawValue).joined(separator: ", ")
            let listed = fromDefaults ? " (granted as an unlisted device of the open registry: \(names))" : " (granted: \(names))"
            return .denied(
                code: .notEntitled,
                detail: "the device registry does not grant \(needed), which \(stream.rawValue) needs\(listed)")
        }

        // Session.
        if requirement.needsRunningWorkout, !state.isWorkoutRunning, !endGraceAdmits {
            let last = state.workout.map { "the last workout frame says \($0.state.name) (\($0.activityType ?? "no activity type")) at date \($0.date)" }
            return .denied(
                code: .noActiveWorkout,
                detail: "\(stream.rawValue) needs a running workout session; " + (last ?? "no workout frame was received"))
        }
        return .allowed(maximumDepth: maximumDepth)
    }

    /// The registry step, and whether a capability is needed at all.
    private enum RegistryStep {
        /// The verdict without looking further: an unknown device, or a stream needing no capability.
        case decided(AccessVerdict)
        /// The stream needs `capability`; the device is known with `entitlements`, which allow
        /// `maximumDepth`.
        case needs(Capability, entitlements: Set<Entitlement>, maximumDepth: Double?)
    }

    private static func registryStep(stream: InboundStream, device: DeviceID, entitlements: Set<Entitlement>?) -> RegistryStep {
        guard let entitlements else {
            return .decided(
                .denied(
                    code: .unknownDevice,
                    detail: "device '\(device)' is not in the device registry, which is closed; list it under 'devices' or set 'open: true'"))
        }
        let maximumDepth = Entitlement.maximumDepth(granted: entitlements)
        guard let capability = StreamRequirement.of(stream).capability else { return .decided(.allowed(maximumDepth: maximumDepth)) }
        return .needs(capability, entitlements: entitlements, maximumDepth: maximumDepth)
    }

    private static func noHelloDetail(_ device: DeviceID) -> String {
        "no hello: device '\(device)' has sent no hello yet, so its model and OS, and with them its capabilities, are unknown"
    }

    private static func authorizationDetail(_ state: DeviceAccessState) -> String {
        guard let status = state.authorization else { return "motion authorization is unknown; data needs 'authorized'" }
        let source =
            switch state.authorizationSource {
            case .authorizationFrame(let date): "from the authorization frame dated \(date)"
            case .hello, nil: "from the hello"
            }
        return "motion authorization is '\(status.name)' (\(source)); data needs 'authorized'"
    }
}
