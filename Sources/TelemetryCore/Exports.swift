// The MQTT vocabulary (MQTTQoS, UserProperty) is part of this module's API: OutboundMessage and
// TopicScheme.Leaf speak it, and their users need no second import.
@_exported import MQTTVocabulary
