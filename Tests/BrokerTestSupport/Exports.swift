// The project's own tests use the testing kit users get (TestBroker, MessageCollector,
// TestClients, GatewayHarness, GatewayRun, …): one copy, re-exported here.
@_exported import WearableGatewayTesting
