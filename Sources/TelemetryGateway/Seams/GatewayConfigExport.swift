// The configuration is part of the gateway's API (buildGateway takes one): whoever imports
// TelemetryGateway sees GatewayConfiguration, its keys table and the loader.
@_exported import GatewayConfig
