// The gateway's clock is part of its API (GatewayHarness and GatewayRun take one): whoever
// imports TelemetryGateway sees GatewayClock, SystemGatewayClock and ManualGatewayClock.
@_exported import GatewayTime
