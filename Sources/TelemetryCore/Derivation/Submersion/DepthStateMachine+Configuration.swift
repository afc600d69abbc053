extension DepthStateMachine {
    /// Settings of the depth state machine.
    public struct Configuration: Sendable, Equatable, Codable {
        /// How far (m) the depth must cross back over a boundary before a shallower band is
        /// entered; see ``DepthBands``. Default 0.05 m.
        public var hysteresis: Double
        /// Water density ρ (kg/m³) for depth from pressure. Default 1025 (sea water); fresh water
        /// is about 997.
        public var waterDensity: Double

        /// Creates settings.
        /// - Parameters:
        ///   - hysteresis: m; default 0.05.
        ///   - waterDensity: kg/m³; default 1025 (sea water).
        public init(hysteresis: Double = 0.05, waterDensity: Double = WaterDepth.seaWaterDensity) {
            self.hysteresis = hysteresis
            self.waterDensity = waterDensity
        }
    }
}
